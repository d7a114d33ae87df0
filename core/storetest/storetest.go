// Package storetest is the former path of the Store conformance suite; it
// forwards to core/store/storetest so existing tests keep building.
//
// Deprecated: import github.com/agentmem/agentmem/core/store/storetest.
package storetest

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/store/storetest"
)

// Opener returns a fresh, empty store; the suite closes it.
type Opener = storetest.Opener

// PairOpener returns two handles on one fresh, empty database.
type PairOpener = storetest.PairOpener

// Run runs every single-handle conformance case against stores from open.
func Run(t *testing.T, open Opener) { storetest.Run(t, open) }

// RunShared runs the cases that need two handles on one database.
func RunShared(t *testing.T, open PairOpener) { storetest.RunShared(t, open) }

// T returns base + n seconds.
func T(n int) time.Time { return storetest.T(n) }
