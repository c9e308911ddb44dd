package main

// exitOf is not available here: the channel is nil (never ready), and the
// bridge's check every watchInterval finds its agent's death.
func exitOf(int) (<-chan struct{}, func()) { return nil, func() {} }
