package core

import (
	"regexp"
	"time"
)

var metadataKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// NormalizeThreadQuery validates q and fills its defaults (PerPage 100,
// OrderBy "createdAt", Direction Desc). Stores call it first.
func NormalizeThreadQuery(q ThreadQuery) (ThreadQuery, error) {
	const op = "ListThreads"
	if q.Page < 0 {
		return q, Errorf(CodeInvalidArgument, op, "page must be >= 0")
	}
	switch {
	case q.PerPage == 0:
		q.PerPage = 100
	case q.PerPage == PerPageAll:
		if q.Page != 0 {
			return q, Errorf(CodeInvalidArgument, op, "page must be 0 when perPage is all")
		}
	case q.PerPage < 0:
		return q, Errorf(CodeInvalidArgument, op, "perPage must be >= 0")
	}
	switch q.OrderBy {
	case "":
		q.OrderBy = "createdAt"
	case "createdAt", "updatedAt":
	default:
		return q, Errorf(CodeInvalidArgument, op, "orderBy must be createdAt or updatedAt, got %q", q.OrderBy)
	}
	switch q.Direction {
	case "":
		q.Direction = Desc
	case Asc, Desc:
	default:
		return q, Errorf(CodeInvalidArgument, op, "direction must be ASC or DESC")
	}
	for k, v := range q.Metadata {
		if err := ValidateMetadataKey(k); err != nil {
			return q, err
		}
		switch v.(type) {
		case string, bool, float64, float32, int, int64, int32, nil:
		default:
			return q, Errorf(CodeInvalidArgument, op, "metadata filter %q must be a scalar", k)
		}
	}
	return q, nil
}

// ValidateMetadataKey checks a metadata filter key.
func ValidateMetadataKey(k string) error {
	if len(k) > 128 || !metadataKeyRE.MatchString(k) || k == "__proto__" || k == "prototype" || k == "constructor" {
		return Errorf(CodeInvalidArgument, "ListThreads", "invalid metadata filter key %q", k)
	}
	return nil
}

// NormalizeMessageQuery validates q and fills its defaults. Stores call it first.
func NormalizeMessageQuery(q MessageQuery) (MessageQuery, error) {
	const op = "ListMessages"
	if err := ValidateID("threadId", q.ThreadID); err != nil {
		return q, err
	}
	if q.Page < 0 {
		return q, Errorf(CodeInvalidArgument, op, "page must be >= 0")
	}
	if q.PerPage < PerPageAll {
		return q, Errorf(CodeInvalidArgument, op, "perPage must be >= 0")
	}
	if q.PerPage == PerPageAll && q.Page != 0 {
		return q, Errorf(CodeInvalidArgument, op, "page must be 0 when perPage is all")
	}
	switch q.Direction {
	case "":
		q.Direction = Asc
	case Asc, Desc:
	default:
		return q, Errorf(CodeInvalidArgument, op, "direction must be ASC or DESC")
	}
	for _, inc := range q.Include {
		if inc.ID == "" || inc.Before < 0 || inc.After < 0 {
			return q, Errorf(CodeInvalidArgument, op, "include needs an id and non-negative ranges")
		}
	}
	return q, nil
}

// InRange reports whether t lies within r.
func (r DateRange) InRange(t time.Time) bool {
	if r.Start != nil && (t.Before(*r.Start) || (r.StartExclusive && t.Equal(*r.Start))) {
		return false
	}
	if r.End != nil && (t.After(*r.End) || (r.EndExclusive && t.Equal(*r.End))) {
		return false
	}
	return true
}

// Less orders messages by (CreatedAt, Seq), the total order of a thread.
func Less(a, b *Message) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.Seq < b.Seq
}
