// Package modeltest is the model-based test of core's public API, the way
// storage engines are tested: seeded random sequences of operations run
// against core.Memory and against a small reference model, invariants are
// checked after every step, and a failing sequence is shrunk to a short one
// that replays from its seed. It holds tests only; CONTRIBUTING.md tells how
// to replay a seed or run fresh seeds for as long as asked.
package modeltest
