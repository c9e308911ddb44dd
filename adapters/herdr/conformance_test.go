package herdr

import (
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

func TestConformance(t *testing.T) {
	adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
		f := newFixture(t, herdrtest.Options{})
		return f.open(t)
	})
}
