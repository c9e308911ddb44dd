package registry

import (
	"fmt"
	"io"
	"log"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/session"
)

// This file contains the host's faults: a session.Source or a Logger that
// panics never crashes the host from a registry goroutine, nor comes out of
// Attach or Detach.

// snapshot returns src's snapshot, or an error when Snapshot panicked.
func (r *Registry) snapshot(src session.Source) (snap session.Snapshot, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the host's session.Source panicked in Snapshot (%v); the adapter was released and stopped", p)
			r.log.Error("session.Source panicked in Snapshot", "panic", fmt.Sprint(p))
		}
	}()
	return src.Snapshot(), nil
}

// subscribe subscribes r.notify to src, or returns an error when Subscribe
// panicked or returned no cancel function.
func (r *Registry) subscribe(src session.Source) (unsub func(), err error) {
	defer func() {
		if p := recover(); p != nil {
			unsub, err = nil, fmt.Errorf("registry: attach: the session.Source panicked in Subscribe: %v", p)
		}
	}()
	unsub = src.Subscribe(r.notify)
	if unsub == nil {
		return nil, fmt.Errorf("registry: attach: the session.Source's Subscribe returned a nil cancel function")
	}
	return unsub, nil
}

// unsubscribeGuarded calls the cancel function Subscribe returned, and
// returns an error when it panicked.
func (r *Registry) unsubscribeGuarded(unsub func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("registry: the session.Source's cancel function (returned by Subscribe) panicked: %v", p)
		}
	}()
	unsub()
	return nil
}

// guardedLogger is a host's hclog.Logger whose every logging call is
// guarded: a panic in it (a writer that panics) drops that line and nothing
// else. It does not log the panic: that would go through the same logger.
type guardedLogger struct{ hclog.Logger }

func guardLogger(l hclog.Logger) hclog.Logger {
	if g, ok := l.(guardedLogger); ok {
		return g
	}
	return guardedLogger{l}
}

func dropPanic() { _ = recover() }

func (l guardedLogger) Log(level hclog.Level, msg string, args ...any) {
	defer dropPanic()
	l.Logger.Log(level, msg, args...)
}

func (l guardedLogger) Trace(msg string, args ...any) {
	defer dropPanic()
	l.Logger.Trace(msg, args...)
}

func (l guardedLogger) Debug(msg string, args ...any) {
	defer dropPanic()
	l.Logger.Debug(msg, args...)
}

func (l guardedLogger) Info(msg string, args ...any) {
	defer dropPanic()
	l.Logger.Info(msg, args...)
}

func (l guardedLogger) Warn(msg string, args ...any) {
	defer dropPanic()
	l.Logger.Warn(msg, args...)
}

func (l guardedLogger) Error(msg string, args ...any) {
	defer dropPanic()
	l.Logger.Error(msg, args...)
}

func (l guardedLogger) With(args ...any) hclog.Logger {
	return guardedLogger{l.Logger.With(args...)}
}

func (l guardedLogger) Named(name string) hclog.Logger {
	return guardedLogger{l.Logger.Named(name)}
}

func (l guardedLogger) ResetNamed(name string) hclog.Logger {
	return guardedLogger{l.Logger.ResetNamed(name)}
}

func (l guardedLogger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	return guardedWriter{l.Logger.StandardWriter(opts)}
}

func (l guardedLogger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

// guardedWriter drops a write that panics.
type guardedWriter struct{ w io.Writer }

func (g guardedWriter) Write(p []byte) (n int, err error) {
	defer func() {
		if recover() != nil {
			n, err = len(p), nil
		}
	}()
	return g.w.Write(p)
}
