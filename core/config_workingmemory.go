package core

import (
	"encoding/json"
	"github.com/agentmem/agentmem/core/store"

	"github.com/agentmem/agentmem/core/internal/workingmem"
	"github.com/agentmem/agentmem/core/memerr"
)

// DefaultWorkingMemoryTemplate is the markdown template used when none is
// given. It is Mastra's default byte for byte, so that working memory written
// by one system reads naturally in the other.
const DefaultWorkingMemoryTemplate = `
# User Information
- **First Name**: 
- **Last Name**: 
- **Location**: 
- **Occupation**: 
- **Interests**: 
- **Goals**: 
- **Events**: 
- **Facts**: 
- **Projects**: 
`

// WorkingMemoryConfig configures working memory: persistent notes the model
// keeps about a resource (default) or a thread through the updateWorkingMemory tool.
type WorkingMemoryConfig struct {
	// Enabled turns working memory on. In a per-call override, false leaves
	// the instance setting as it is; Disabled turns it off for the call.
	Enabled  bool
	Disabled bool
	Template string          // markdown template; default DefaultWorkingMemoryTemplate
	Schema   json.RawMessage // JSON Schema; switches to JSON mode (merge updates)
	Scope    store.Scope     // default ScopeResource
	// Version picks the update tool of Markdown working memory:
	// WorkingMemoryStable (default) replaces the whole memory,
	// WorkingMemoryVNext (Mastra's version 'vnext') appends newMemory or
	// replaces the text named by searchString, with an updateReason. VNext
	// does not combine with Schema.
	Version string

	schema *workingmem.Schema // compiled Schema, set by resolve
}

// Working memory versions (WorkingMemoryConfig.Version).
const (
	WorkingMemoryStable = "stable"
	WorkingMemoryVNext  = "vnext"
)

// resolve validates and defaults w. The schema is compiled unless prev (the
// resolved instance setting) already holds it compiled.
func (w WorkingMemoryConfig) resolve(prev *WorkingMemoryConfig) (WorkingMemoryConfig, error) {
	var err error
	if w.Scope, err = resolveScope("workingMemory.scope", w.Scope, store.ScopeResource); err != nil {
		return w, err
	}
	switch w.Version {
	case "", WorkingMemoryStable:
		w.Version = WorkingMemoryStable
	case WorkingMemoryVNext:
		if len(w.Schema) > 0 {
			return w, memerr.Errorf(memerr.CodeInvalidConfig, "", "workingMemory.version %q applies to Markdown working memory only; remove the schema or the version", w.Version)
		}
	default:
		return w, memerr.Errorf(memerr.CodeInvalidConfig, "", "workingMemory.version must be %q or %q, not %q", WorkingMemoryStable, WorkingMemoryVNext, w.Version)
	}
	w.schema = nil
	switch {
	case len(w.Schema) > 0 && prev != nil && prev.schema != nil && prev.schema.CompiledFrom(w.Schema):
		w.schema = prev.schema
	case len(w.Schema) > 0:
		var v map[string]any
		if err := json.Unmarshal(w.Schema, &v); err != nil {
			return w, &memerr.Error{Code: memerr.CodeInvalidConfig, Msg: "workingMemory.schema must be a JSON object", Err: err}
		}
		sch, err := workingmem.Compile(w.Schema)
		if err != nil {
			return w, &memerr.Error{Code: memerr.CodeInvalidConfig, Msg: "workingMemory.schema is not a valid JSON Schema", Err: err}
		}
		w.schema = sch
	case w.Template == "":
		w.Template = DefaultWorkingMemoryTemplate
	}
	return w, nil
}

// mergeWorkingMemoryConfig overlays the set fields of over on base (both
// owned by the caller).
func mergeWorkingMemoryConfig(base, over *WorkingMemoryConfig) *WorkingMemoryConfig {
	if base == nil || over == nil {
		return pick(base, over)
	}
	base.Enabled = base.Enabled || over.Enabled
	base.Disabled = over.Disabled
	setIf(&base.Template, over.Template)
	if len(over.Schema) > 0 {
		base.Schema = over.Schema
	}
	setIf(&base.Scope, over.Scope)
	setIf(&base.Version, over.Version)
	return base
}
