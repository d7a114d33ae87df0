package core

import (
	"context"
	"errors"

	"github.com/agentmem/agentmem/core/store"
)

// Tools returns the memory tools for a thread without starting a turn, for
// frameworks that bind tools before a run (agents, ADK): the
// updateWorkingMemory tool when working memory is enabled and the config is
// not read-only, and the recall tool when SemanticRecall.Retrieval is set
// and resourceID is given. The tools are bound to threadID and resourceID.
func (m *Memory) Tools(ctx context.Context, threadID, resourceID string, cfg *Config) ([]Tool, error) {
	st, err := m.settings(cfg)
	if err != nil {
		return nil, err
	}
	wm := st.wm != nil && !st.readOnly
	recall := st.recall != nil && st.recall.Retrieval != nil && resourceID != ""
	if !wm && !recall {
		return nil, nil
	}
	s, err := m.open(ctx, "Tools")
	if err != nil {
		return nil, err
	}
	th := Thread{ID: threadID, ResourceID: resourceID}
	var out []Tool
	if wm {
		set := st.wm.settings()
		scope, id, err := set.Target(threadID, resourceID)
		if err != nil {
			return nil, err
		}
		if scope == ScopeThread && resourceID != "" {
			// The tool writes the thread's working memory: the thread must be
			// resourceID's (a missing one is created by the tool for it).
			if _, err := m.ownedThread(ctx, s, "Tools", threadID, resourceID); err != nil && !errors.Is(err, ErrThreadNotFound) {
				return nil, err
			}
		}
		out = append(out, m.workingMemoryTool(m.workingMemory.Tool(set, scope, id, th)))
	}
	if recall {
		if err := store.ValidateID("threadId", threadID); err != nil {
			return nil, err
		}
		// The tool reads resourceID's messages for this thread: a thread of
		// another resource must not be searched under it.
		if _, err := m.ownedThread(ctx, s, "Tools", threadID, resourceID); err != nil && !errors.Is(err, ErrThreadNotFound) {
			return nil, err
		}
		out = append(out, m.recallTool(st, th))
	}
	return out, nil
}

// Config returns a deep copy of the instance-wide configuration given to New:
// changing it does not change the Memory.
func (m *Memory) Config() Config { return m.cfg.Clone() }
