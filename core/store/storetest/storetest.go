// Package storetest is the conformance suite every store.Store must pass. It
// drives the backend through core's store.Checked, as core.Memory does, so
// validation and error classification are tested once for every backend. A
// backend proves itself with one line:
//
//	func TestConformance(t *testing.T) { storetest.Run(t, openFreshStore) }
//
// RunShared additionally checks two handles on one database (two processes'
// view): atomic boundaries, working-memory and observation versions, and
// visibility.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// Opener returns a fresh, empty store; the suite closes it.
type Opener func(t *testing.T) store.Store

// PairOpener returns two handles on one fresh, empty database.
type PairOpener func(t *testing.T) (store.Store, store.Store)

// Run runs every single-handle conformance case against stores from open.
func Run(t *testing.T, open Opener) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s *store.Checked)
	}{
		{"ThreadRoundTrip", testThreadRoundTrip},
		{"ThreadMissing", testThreadMissing},
		{"SaveThreadUpsert", testSaveThreadUpsert},
		{"UpdateThread", testUpdateThread},
		{"MetadataKeepsNoCallerValue", testMetadataKeepsNoCallerValue},
		{"DeleteThreadCascades", testDeleteThreadCascades},
		{"ListThreadsPaging", testListThreadsPaging},
		{"ListThreadsOrder", testListThreadsOrder},
		{"ListThreadsTieOrder", testListThreadsTieOrder},
		{"ListThreadsFilters", testListThreadsFilters},
		{"ListThreadsValidation", testListThreadsValidation},
		{"MessagesListDefault", testMessagesListDefault},
		{"MessagesPaging", testMessagesPaging},
		{"MessagesResourceFilter", testMessagesResourceFilter},
		{"MessagesDateRange", testMessagesDateRange},
		{"MessagesCursor", testMessagesCursor},
		{"MessagesExcludeIDs", testMessagesExcludeIDs},
		{"MessagesIncludeWindows", testMessagesIncludeWindows},
		{"MessagesMetadataFilter", testMessagesMetadataFilter},
		{"MessagesMetadataFilterTimes", testMessagesMetadataFilterTimes},
		{"MessagesMetadataFilterPaging", testMessagesMetadataFilterPaging},
		{"MessagesMetadataFilterInvalid", testMessagesMetadataFilterInvalid},
		{"MessagesIncludeResourceScope", testMessagesIncludeResourceScope},
		{"MessagesAll", testMessagesAll},
		{"MessagesBadThreadID", testMessagesBadThreadID},
		{"MessagesUpsertKeepsCreatedAt", testMessagesUpsert},
		{"SaveLeavesInput", testSaveLeavesInput},
		{"MessagesMove", testMessagesMove},
		{"MessagesValidationAtomic", testMessagesValidationAtomic},
		{"MessagesOwnership", testMessagesOwnership},
		{"MessagesSameTimestampOrder", testMessagesSameTimestampOrder},
		{"MessagesContentFidelity", testMessagesContentFidelity},
		{"MessagesTokens", testMessagesTokens},
		{"GetMessages", testGetMessages},
		{"DeleteMessages", testDeleteMessages},
		{"UpdatedAtBump", testUpdatedAtBump},
		{"Resources", testResources},
		{"ListResources", testListResources},
		{"ObservedResourceListed", testObservedResourceListed},
		{"WorkingMemoryVersions", testWorkingMemoryVersions},
		{"WorkingMemoryThreadScope", testWorkingMemoryThreadScope},
		{"BoundaryMonotonic", testBoundaryMonotonic},
		{"BoundaryEpochs", testBoundaryEpochs},
		{"BoundaryOwnership", testBoundaryOwnership},
		{"BoundaryPreservesThread", testBoundaryPreservesThread},
		{"InjectionAsData", testInjection},
		{"ConcurrentSaves", testConcurrentSaves},
		{"ObservationsRoundTrip", testObservationsRoundTrip},
		{"ObservationsConflict", testObservationsConflict},
		{"ObservationsGenerations", testObservationsGenerations},
		{"ObservationsBuffer", testObservationsBuffer},
		{"ObservationsClear", testObservationsClear},
		{"ResourceMessages", testResourceMessages},
		{"HugePagingValues", testHugePagingValues},
		{"MessagesBatchTakeover", testMessagesBatchTakeover},
		{"UnindexedMarkListClear", testUnindexedMarkListClear},
		{"WindowDecodes", testWindowDecodes},
		{"WindowSameAsList", testWindowSameAsList},
		{"UnindexedIdempotent", testUnindexedIdempotent},
		{"UnindexedCascade", testUnindexedCascade},
		{"UnindexedLimit", testUnindexedLimit},
		{"UnindexedResourceFilter", testUnindexedResourceFilter},
		{"ThreadFieldRules", testThreadFieldRules},
		{"DeepMetadataReadable", testDeepMetadataReadable},
		{"MessageFieldRules", testMessageFieldRules},
		{"OtherFieldRules", testOtherFieldRules},
		{"EndedContext", testEndedContext},
		{"BoundaryPullBack", testBoundaryPullBack},
		{"BoundaryClamp", testBoundaryClamp},
		{"BulkSameAsSave", testBulkSameAsSave},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := store.Check(open(t))
			t.Cleanup(func() { _ = s.Close() })
			c.fn(t, s)
		})
	}
	runMove(t, open)
}

// RunShared runs the cases that need two handles on one database.
func RunShared(t *testing.T, open PairOpener) {
	cases := []struct {
		name string
		fn   func(t *testing.T, a, b *store.Checked)
	}{
		{"Visibility", testSharedVisibility},
		{"BoundaryRace", testSharedBoundaryRace},
		{"BoundaryUnion", testSharedBoundaryUnion},
		{"WorkingMemoryRace", testSharedWorkingMemoryRace},
		{"SaveRace", testSharedSaveRace},
		{"ObservationsRace", testSharedObservationsRace},
		{"Unindexed", testSharedUnindexed},
		{"UnindexedDeleteRace", testSharedUnindexedDeleteRace},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ra, rb := open(t)
			a, b := store.Check(ra), store.Check(rb)
			t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
			c.fn(t, a, b)
		})
	}
	runSharedMove(t, open)
}

// base is the fixed time T(0) of the suite; T(n) is n seconds later.
var base = time.Date(2026, 10, 30, 12, 0, 0, 0, time.UTC)

// T returns base + n seconds.
func T(n int) time.Time { return base.Add(time.Duration(n) * time.Second) }

func ctx() context.Context { return context.Background() }

func mustThread(t *testing.T, s *store.Checked, id, resource string) store.Thread {
	t.Helper()
	th, err := s.SaveThread(ctx(), store.Thread{ID: id, ResourceID: resource, Title: "t " + id, CreatedAt: T(0), UpdatedAt: T(0)})
	if err != nil {
		t.Fatalf("SaveThread(%s): %v", id, err)
	}
	return th
}

func msg(id, thread, resource, text string, at time.Time) message.Message {
	m := message.NewMessage(message.RoleUser, text)
	m.ID, m.ThreadID, m.ResourceID, m.CreatedAt = id, thread, resource, at
	return m
}

func mustSave(t *testing.T, s *store.Checked, msgs ...message.Message) []message.Message {
	t.Helper()
	out, err := s.SaveMessages(ctx(), msgs)
	if err != nil {
		t.Fatalf("SaveMessages: %v", err)
	}
	return out
}

func list(t *testing.T, s *store.Checked, q store.MessageQuery) store.MessagePage {
	t.Helper()
	p, err := s.ListMessages(ctx(), q)
	if err != nil {
		t.Fatalf("ListMessages(%+v): %v", q, err)
	}
	return p
}

func ids(msgs []message.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

func texts(msgs []message.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Text()
	}
	return out
}

func threadIDs(ts []store.Thread) []string {
	out := make([]string, len(ts))
	for i, th := range ts {
		out[i] = th.ID
	}
	return out
}

func eq[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func wantCode(t *testing.T, err error, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
}
