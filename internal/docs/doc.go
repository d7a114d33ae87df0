// Package docs keeps the Go code of README.md and docs/*.md compiled: every
// Go block there names an Example function it is taken from, and this
// package's test checks that the two are equal. The package's own examples
// are the README's snippets that belong to no other package.
package docs
