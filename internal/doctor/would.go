package doctor

import "github.com/panestate/panestate/registry"

// Would reads an explanation made before Attach as the verdict does,
// without probing: the adapters the registry would open on Attach (open),
// and each one it would try to open and fail, as "name: why" (failing).
// `panestate doctor` uses it for what each agent's hook would do.
func Would(e registry.Explanation) (open, failing []string) {
	for _, a := range e.Adapters {
		switch {
		case failsToOpen(a):
			failing = append(failing, a.Name+": "+a.Why)
		case wouldOpen(a):
			open = append(open, a.Name)
		}
	}
	return open, failing
}
