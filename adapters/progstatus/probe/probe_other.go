//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package probe

import (
	"context"
	"time"
)

func run(context.Context, string, time.Duration) (Result, error) { return Result{}, ErrUnsupported }
