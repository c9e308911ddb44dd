package settings

import (
	"fmt"
	"path/filepath"
)

// TrustStore reads an Atomic-style trust store: a JSON object that maps a
// project's canonical absolute path to a decision, kept by the host (Atomic
// keeps it at ~/.atomic/agent/trust.json, see [DefaultTrustFile]). The saved
// decision of the project directory or its nearest ancestor wins: true is
// trusted; false, "ask" (the library cannot prompt), any other value, no
// entry, a missing file or a malformed file are untrusted. null entries are
// skipped. The store is only read, never written.
//
// Setting [Options.TrustFile] uses a TrustStore and also watches the file.
// Trust is safe for concurrent use.
type TrustStore struct {
	Path string
}

// Trust reports whether projectRoot is trusted; it has the signature of
// [Options.Trust]. The error is set when the store cannot be read or parsed,
// and the project is then untrusted.
func (t TrustStore) Trust(projectRoot string) (bool, error) {
	m, err := readTrustStore(t.Path)
	if err != nil {
		return false, err
	}
	ok, _ := decideTrust(m, projectRoot)
	return ok, nil
}

// readTrustStore returns the store's object; a missing or empty file is an
// empty store.
func readTrustStore(path string) (map[string]any, error) {
	r := readFile(path)
	switch r.kind {
	case readFailed:
		return nil, r.err
	case readData:
		return parse(path, r.data)
	}
	return nil, nil
}

// canonicalRoot returns root made absolute with symbolic links resolved when
// possible.
func canonicalRoot(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = filepath.Clean(root)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// decideTrust looks up root and its ancestors in the store and says why.
func decideTrust(store map[string]any, root string) (bool, string) {
	clean := make(map[string]any, len(store))
	for k, v := range store {
		if filepath.IsAbs(k) {
			clean[filepath.Clean(k)] = v
		}
	}
	for p := canonicalRoot(root); ; {
		if v, ok := clean[p]; ok && v != nil {
			switch v {
			case true:
				return true, fmt.Sprintf("trust store: %s is trusted", p)
			case false:
				return false, fmt.Sprintf("trust store: %s is not trusted", p)
			case "ask":
				return false, fmt.Sprintf("trust store: %s is \"ask\", which counts as untrusted because the library cannot prompt", p)
			default:
				return false, fmt.Sprintf("trust store: %s has an invalid decision (%s), which counts as untrusted", p, describe(v))
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false, "trust store: no decision for the project or any parent directory"
		}
		p = parent
	}
}

// trustDecision is the outcome of resolving trust for the project layer.
type trustDecision struct {
	trusted bool
	reason  string
	err     string
}

// resolveTrust asks the host's Trust func, or decides from the trust store
// content (store, storeErr), or denies.
func resolveTrust(c *config, store map[string]any, storeErr error) trustDecision {
	switch {
	case c.trust != nil:
		ok, err := c.trust(c.projectRoot)
		if err != nil {
			return trustDecision{reason: "the host's trust function failed", err: err.Error()}
		}
		if ok {
			return trustDecision{trusted: true, reason: "the host's trust function trusts the project"}
		}
		return trustDecision{reason: "the host's trust function does not trust the project"}
	case c.trustFile != "":
		if storeErr != nil {
			return trustDecision{reason: "the trust store cannot be read, so the project is untrusted: " + storeErr.Error(), err: storeErr.Error()}
		}
		ok, why := decideTrust(store, c.projectRoot)
		return trustDecision{trusted: ok, reason: why}
	}
	return trustDecision{reason: "no trust function or trust store configured; projects are untrusted by default"}
}
