// Package workingmem holds the mechanisms behind working memory: compiling a
// JSON Schema into its validator, template skeleton and tool parameters;
// parsing the updateWorkingMemory tool's arguments into an update (Markdown
// replace or JSON deep merge); rendering the fenced working-memory system
// message; and the backoff of the compare-and-set retries. Storing, scoping
// and the public API are package core's.
package workingmem
