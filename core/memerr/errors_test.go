package memerr

import (
	"errors"
	"testing"
)

// An unavailable storage is a storage failure too; not every storage failure
// is worth retrying.
func TestStorageUnavailableIsStorage(t *testing.T) {
	unavailable := &Error{Code: CodeStorageUnavailable, Op: "SaveMessages", Msg: "down"}
	if !errors.Is(unavailable, ErrStorageUnavailable) || !errors.Is(unavailable, ErrStorage) {
		t.Errorf("%v: want both ErrStorageUnavailable and ErrStorage", unavailable)
	}
	failed := WrapStorage("SaveMessages", errors.New("boom"))
	if errors.Is(failed, ErrStorageUnavailable) || !errors.Is(failed, ErrStorage) {
		t.Errorf("%v: want ErrStorage only", failed)
	}
	if errors.Is(unavailable, ErrConflict) {
		t.Errorf("%v matches ErrConflict", unavailable)
	}
}
