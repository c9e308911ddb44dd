package wire

import (
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestExchangesCloseTheirSockets: no outcome of an exchange leaves its
// descriptor open: answered, refused by the Peer check, stopped, not
// answered by the deadline, cancelled.
func TestExchangesCloseTheirSockets(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	open := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	// The servers run in this process: each connection's server side is
	// closed and counted done before descriptors are counted.
	var served sync.WaitGroup
	counted := func(h func(net.Conn)) func(net.Conn) {
		return func(c net.Conn) {
			defer served.Done()
			defer c.Close()
			h(c)
		}
	}
	ok := listen(t, counted(answer(`{"id":"x","result":{"type":"ok"}}`+"\n")))
	hold := listen(t, counted(func(c net.Conn) { io.Copy(io.Discard, c) }))
	ping := Request{ID: "x", Method: MethodPing, Params: []byte("{}")}
	refuse := func(net.Conn) error { return io.ErrUnexpectedEOF }
	stopped := make(chan struct{})
	close(stopped)
	run := func() {
		served.Add(3) // a stopped exchange never connects
		Do(t.Context(), ok.socket, ping)
		DoGuarded(t.Context(), ok.socket, ping, Guard{Peer: refuse})
		DoGuarded(t.Context(), ok.socket, ping, Guard{Stop: stopped})
		DoGuarded(t.Context(), hold.socket, ping, Guard{Deadline: time.Now().Add(5 * time.Millisecond)})
		served.Wait()
	}
	run() // the servers' own descriptors are open by now
	before := open()
	for range 20 {
		run()
	}
	if after := open(); after != before {
		t.Errorf("%d descriptors open after 80 exchanges, %d before", after, before)
	}
}
