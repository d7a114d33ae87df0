package langchaingo

import (
	"github.com/tmc/langchaingo/tools"

	"github.com/agentmem/agentmem/core"
)

// Tools wraps every memory tool (core.Turn.Tools or core.Memory.Tools:
// updateWorkingMemory, recall) as langchaingo tools; see WorkingMemoryTool
// for how their input is passed.
func Tools(ts []core.Tool) []tools.Tool {
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = coreTool{t}
	}
	return out
}
