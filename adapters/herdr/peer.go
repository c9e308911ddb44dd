package herdr

import (
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/panestate/panestate/adapter"
)

// foreignServerError is the refusal of a Herdr server that runs as another
// user: it would receive the pane's state, the session identity and the
// resume command.
type foreignServerError struct {
	uid, own int
}

func (e *foreignServerError) Error() string {
	return fmt.Sprintf("the server runs as uid %d, not as this user (uid %d)", e.uid, e.own)
}

// errPeerUnknown is the refusal of a server whose user cannot be read.
var errPeerUnknown = errors.New("cannot tell which user the server runs as")

// checkPeerUID refuses the server at the other end of c unless uidOf says
// it runs as own, this process's user (read once, when the adapter opens:
// a report then costs no getuid call).
func checkPeerUID(c net.Conn, uidOf func(net.Conn) (int, error), own int) error {
	uid, err := uidOf(c)
	if err != nil {
		return fmt.Errorf("%w: %w", errPeerUnknown, err)
	}
	if uid != own {
		return &foreignServerError{uid: uid, own: own}
	}
	return nil
}

// refusedPeer reports whether err is a refusal of the server's user.
func refusedPeer(err error) bool {
	var fe *foreignServerError
	return errors.As(err, &fe) || errors.Is(err, errPeerUnknown)
}

// probePeer checks, for the CLI transport, that the server at the socket
// runs as this user: the CLI would otherwise hand the session identity to
// whoever listens there. It goes by the owner of the socket file (the
// user whose server bound it; a link is followed), without a connection:
// each connection Herdr's CLI makes carries one request line, and the
// adapter makes none of its own beside them. Nothing there is not a
// refusal (the CLI then reports server_not_running itself).
func (a *Adapter) probePeer() error {
	if a.peer == nil {
		return nil
	}
	uid, err := a.ownerOf(a.socket)
	if err != nil {
		return nil
	}
	if own := os.Getuid(); uid != own {
		return &CallError{Op: OpReport, Kind: adapter.KindProtocolRejected, Exit: -1, socket: true, Err: &foreignServerError{uid: uid, own: own}}
	}
	return nil
}
