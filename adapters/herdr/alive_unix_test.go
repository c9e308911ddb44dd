//go:build unix

package herdr

// canKillGroups is whether a straggling grandchild is killed with the group.
const canKillGroups = true
