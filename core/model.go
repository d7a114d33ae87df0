package core

import "context"

// Model is the text-generation interface core uses for thread titles and
// observational memory (observer and reflector). The framework adapters
// provide implementations. Generate must be safe for concurrent use: titles
// and observations of different threads run at the same time, in the
// background when so configured, and ctx bounds each call.
type Model interface {
	Generate(ctx context.Context, system, prompt string) (string, error)
}
