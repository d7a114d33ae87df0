// Package workingmem is working memory. Its Keeper, built over a store,
// shows a turn the stored notes and gives it the update tool (Turn), and
// reads, replaces and size-checks working memory for the direct API and
// thread metadata; updates are compare-and-sets retried with backoff. The
// rest of the package are its mechanisms: compiling a JSON Schema into its
// validator, template skeleton and tool parameters; parsing the
// updateWorkingMemory tool's arguments into an update (Markdown replace,
// vnext edit or JSON deep merge); rendering the fenced working-memory
// system message. Configuration and the public API are package core's.
package workingmem
