// Package processors holds prompt processors that users add to a core.Memory
// (Options.Processors). They run after memory's own steps on every turn and
// never modify storage.
package processors
