package core

import (
	"context"
	"errors"
)

// Tools returns the memory tools for a thread without starting a turn, for
// frameworks that bind tools before a run (agents, ADK). It is the
// updateWorkingMemory tool when working memory is enabled and the config is
// not read-only, else none. The tool is bound to threadID and resourceID.
func (m *Memory) Tools(ctx context.Context, threadID, resourceID string, cfg *Config) ([]Tool, error) {
	st, err := m.settings(cfg)
	if err != nil {
		return nil, err
	}
	if st.wm == nil || st.readOnly {
		return nil, nil
	}
	s, err := m.open(ctx, "Tools")
	if err != nil {
		return nil, err
	}
	scope, id, err := st.wm.target(threadID, resourceID)
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
	th := Thread{ID: threadID, ResourceID: resourceID}
	return []Tool{m.workingMemoryTool(*st.wm, scope, id, th)}, nil
}

// Config returns a deep copy of the instance-wide configuration given to New:
// changing it does not change the Memory.
func (m *Memory) Config() Config { return m.cfg.Clone() }
