package adapter

import "strings"

// Env is a captured environment in os.Environ form ("KEY=value"). Adapters
// read the environment from here, never from the process, so that what they
// see is fixed when they are opened and tests can supply their own.
type Env []string

// Lookup returns the value of key and whether it is set. When a key is set
// more than once, the last one wins, as in os/exec.
func (e Env) Lookup(key string) (string, bool) {
	for i := len(e) - 1; i >= 0; i-- {
		k, v, ok := strings.Cut(e[i], "=")
		if ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Get returns the value of key, or "" when it is unset.
func (e Env) Get(key string) string {
	v, _ := e.Lookup(key)
	return v
}

// With returns a copy of e in which key is set to value (replacing every
// earlier setting of key).
func (e Env) With(key, value string) Env {
	out := e.Without(func(k string) bool { return k == key })
	return append(out, key+"="+value)
}

// Without returns a copy of e without the variables whose names drop reports.
func (e Env) Without(drop func(key string) bool) Env {
	out := make(Env, 0, len(e)+1)
	for _, kv := range e {
		k, _, _ := strings.Cut(kv, "=")
		if !drop(k) {
			out = append(out, kv)
		}
	}
	return out
}
