package core

import "github.com/agentmem/agentmem/core/store"

// Thread is one conversation. It belongs to exactly one resource.
type Thread = store.Thread

// Scope selects thread- or resource-level data (working memory, recall,
// observations).
type Scope = store.Scope

// The scopes of working memory, semantic recall and observational memory.
const (
	ScopeThread   = store.ScopeThread
	ScopeResource = store.ScopeResource
)
