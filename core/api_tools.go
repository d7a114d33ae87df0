package core

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/agentmem/agentmem/core/memerr"

	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/internal/retrieval"

	"github.com/agentmem/agentmem/core/store"
)

// Tools returns the memory tools for a thread without starting a turn, for
// frameworks that bind tools before a run (agents, ADK): the
// updateWorkingMemory tool when working memory is enabled and the config is
// not read-only, and the recall tool when SemanticRecall.Retrieval is set
// and resourceID is given. The tools are bound to threadID and resourceID.
func (m *Memory) Tools(ctx context.Context, threadID, resourceID string, cfg *Config) ([]Tool, error) {
	st, err := m.conf.settings(cfg)
	if err != nil {
		return nil, err
	}
	wm := st.wm != nil && !st.readOnly
	wantRecall := st.recall != nil && st.recall.Tool != nil && resourceID != ""
	if !wm && !wantRecall {
		return nil, nil
	}
	s, err := m.entry.open(ctx, "Tools")
	if err != nil {
		return nil, err
	}
	th := store.Thread{ID: threadID, ResourceID: resourceID}
	var out []Tool
	if wm {
		set := st.wm.settings()
		scope, id, err := set.Target(threadID, resourceID)
		if err != nil {
			return nil, err
		}
		if scope == store.ScopeThread && resourceID != "" {
			// The tool writes the thread's working memory: the thread must be
			// resourceID's (a missing one is created by the tool for it).
			if _, err := s.OwnedThread(ctx, "Tools", threadID, resourceID); err != nil && !errors.Is(err, memerr.ErrThreadNotFound) {
				return nil, err
			}
		}
		out = append(out, m.workingMemoryTool(m.workingMemory.Tool(set, scope, id, th)))
	}
	if wantRecall {
		if err := store.ValidateID("threadId", threadID); err != nil {
			return nil, err
		}
		// The tool reads resourceID's messages for this thread: a thread of
		// another resource must not be searched under it.
		if _, err := s.OwnedThread(ctx, "Tools", threadID, resourceID); err != nil && !errors.Is(err, memerr.ErrThreadNotFound) {
			return nil, err
		}
		out = append(out, recallTool(m.rec, st.recall, th))
	}
	return out, nil
}

// RecallToolName is the name of the tool with which the model searches the
// stored messages of its resource (Mastra's recall tool), offered when
// SemanticRecall.Retrieval is set.
const RecallToolName = recall.ToolName

// recallTool is the recall tool over th's resource with rs (rs.Tool set).
func recallTool(e *recall.Engine, rs *recall.Settings, th store.Thread) Tool {
	desc, call := e.ToolCall(rs, th)
	return Tool{Name: RecallToolName, Description: desc, Parameters: json.RawMessage(retrieval.Params), Call: call}
}

// Config returns a deep copy of the instance-wide configuration given to New:
// changing it does not change the Memory.
func (m *Memory) Config() Config { return m.conf.cfg.Clone() }
