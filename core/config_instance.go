package core

import (
	"github.com/agentmem/agentmem/core/internal/recall"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// configs resolves the instance config and the per-call overrides of it
// against the dependencies Memory was built with.
type configs struct {
	cfg      Config          // deep copy of Options.Config, never aliased
	st       settings        // cfg resolved once
	model    Model           // Options.Model
	vector   vector.Store    // Options.Vector, checked
	embedder vector.Embedder // Options.Embedder, traced
	store    *store.Checked
	rec      *recall.Engine // its generation stamps settings
}

// settings returns the resolved instance settings, or with a per-call
// override, the instance config merged with it and re-resolved only in the
// sections the override sets.
func (c *configs) settings(over *Config) (settings, error) {
	if over == nil {
		st := c.st
		st.ownerGen = c.rec.Generation()
		return st, nil
	}
	s, err := c.cfg.Merge(over).resolveOver(c.st, over)
	s.ownerGen = c.rec.Generation()
	if err == nil && over.ObservationalMemory != nil {
		s, err = s.withModels(c.model)
	}
	if err == nil {
		err = c.requireDeps("Config", s)
	}
	return s, err
}

// requireDeps fails when resolved settings need a dependency Memory was built
// without: semantic recall needs a vector store and an embedder (unless the
// vector store embeds), and a store with the capabilities the features use.
// New and every per-call Config go through it, so a per-call Config cannot
// turn on a feature the instance cannot serve.
func (c *configs) requireDeps(op string, s settings) error {
	if s.recall != nil {
		if c.vector == nil {
			return &memerr.Error{Code: memerr.CodeNoVectorStore, Op: op, Msg: memerr.ErrNoVectorStore.Msg()}
		}
		if c.embedder == nil && !c.vector.SelfEmbedding() {
			return &memerr.Error{Code: memerr.CodeNoEmbedder, Op: op, Msg: memerr.ErrNoEmbedder.Msg()}
		}
	}
	if c.store != nil {
		return requireCapabilities(op, c.store, s)
	}
	return nil
}

// requireCapabilities fails when a configured feature needs an optional
// store capability the driver lacks.
func requireCapabilities(op string, c *store.Checked, s settings) error {
	_, _, obs, queue := c.Capabilities()
	if s.recall != nil && !queue {
		return memerr.Errorf(memerr.CodeUnsupported, op, "semantic recall needs a store that implements store.IndexQueue")
	}
	if s.observation != nil && !obs {
		return memerr.Errorf(memerr.CodeUnsupported, op, "observational memory needs a store that implements store.Observations")
	}
	return nil
}
