package core

import "context"

// workingMemoryTurn returns the working-memory system message and tools of a turn.
func (m *Memory) workingMemoryTurn(ctx context.Context, st settings, th Thread) (string, []Tool, error) {
	return "", nil, ErrWorkingMemoryDisabled
}
