package core

// WaitBackground waits for the background jobs of m (observation cycles,
// buffering, titles) started so far.
func WaitBackground(m *Memory) { m.bg.Wait() }
