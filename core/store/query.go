package store

import (
	"math"
	"regexp"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
)

var metadataKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// NormalizeResourceQuery validates q and fills its default (PerPage 100).
// Stores call it first.
func NormalizeResourceQuery(q ResourceQuery) (ResourceQuery, error) {
	const op = "ListResources"
	switch {
	case q.PerPage == 0:
		q.PerPage = 100
	case q.PerPage < 0 || q.PerPage > MaxResourcePage:
		return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "perPage must be between 0 and %d, got %d", MaxResourcePage, q.PerPage)
	}
	if q.After != "" {
		if err := ValidateID("after", q.After); err != nil {
			return q, err
		}
	}
	return q, nil
}

// NormalizeThreadQuery validates q and fills its defaults (PerPage 100,
// OrderBy "createdAt", Direction Desc). Stores call it first.
func NormalizeThreadQuery(q ThreadQuery) (ThreadQuery, error) {
	const op = "ListThreads"
	if q.Page < 0 {
		return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "page must be >= 0")
	}
	switch {
	case q.PerPage == 0:
		q.PerPage = 100
	case q.PerPage == PerPageAll:
		if q.Page != 0 {
			return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "page must be 0 when perPage is all")
		}
	case q.PerPage < 0:
		return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "perPage must be >= 0")
	}
	switch q.OrderBy {
	case "":
		q.OrderBy = "createdAt"
	case "createdAt", "updatedAt":
	default:
		return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "orderBy must be createdAt or updatedAt, got %q", q.OrderBy)
	}
	switch q.Direction {
	case "":
		q.Direction = Desc
	case Asc, Desc:
	default:
		return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "direction must be ASC or DESC")
	}
	for k, v := range q.Metadata {
		if err := ValidateMetadataKey(k); err != nil {
			return q, err
		}
		switch x := v.(type) {
		case string:
			if err := ValidateText("metadata filter "+k, x); err != nil {
				return q, err
			}
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "metadata filter %q must be finite", k)
			}
		case bool, float32, int, int64, int32, nil:
		default:
			return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "metadata filter %q must be a scalar", k)
		}
	}
	return q, nil
}

// ValidateMetadataKey checks a metadata filter key.
func ValidateMetadataKey(k string) error {
	if len(k) > 128 || !metadataKeyRE.MatchString(k) || k == "__proto__" || k == "prototype" || k == "constructor" {
		return memerr.Errorf(memerr.CodeInvalidArgument, "ListThreads", "invalid metadata filter key %q", k)
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
		return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "page must be >= 0")
	}
	if q.PerPage < PerPageAll {
		return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "perPage must be >= 0")
	}
	if q.PerPage == PerPageAll && q.Page != 0 {
		return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "page must be 0 when perPage is all")
	}
	switch q.Direction {
	case "":
		q.Direction = Asc
	case Asc, Desc:
	default:
		return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "direction must be ASC or DESC")
	}
	if q.ResourceID != "" {
		if err := ValidateID("resourceId", q.ResourceID); err != nil {
			return q, err
		}
	}
	for _, inc := range q.Include {
		if ValidateID("id", inc.ID) != nil || inc.Before < 0 || inc.After < 0 {
			return q, memerr.Errorf(memerr.CodeInvalidArgument, op, "include needs a valid id and non-negative ranges")
		}
	}
	if err := q.Metadata.Validate(); err != nil {
		err.(*memerr.Error).Op = op
		return q, err
	}
	if err := ValidateIDs("excludeIds", q.ExcludeIDs); err != nil {
		err.(*memerr.Error).Op = op
		return q, err
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

// ValidateResourceMessageQuery checks a ListResourceMessages query; stores
// call it first.
func ValidateResourceMessageQuery(q ResourceMessageQuery) error {
	const op = "ListResourceMessages"
	if err := ValidateID("resourceId", q.ResourceID); err != nil {
		err.(*memerr.Error).Op = op
		return err
	}
	if q.Limit <= 0 {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "limit must be positive")
	}
	switch q.Direction {
	case "", Asc, Desc:
	default:
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "direction must be ASC or DESC")
	}
	if err := ValidateIDs("excludeIds", q.ExcludeIDs); err != nil {
		err.(*memerr.Error).Op = op
		return err
	}
	return nil
}

// ValidateUnindexedQuery checks the arguments of ListUnindexed; stores call
// it first. resourceID is "" (every resource) or a valid id.
func ValidateUnindexedQuery(resourceID string, limit int) error {
	const op = "ListUnindexed"
	if resourceID != "" {
		if err := ValidateID("resourceId", resourceID); err != nil {
			err.(*memerr.Error).Op = op
			return err
		}
	}
	if limit <= 0 {
		return memerr.Errorf(memerr.CodeInvalidArgument, op, "limit must be positive")
	}
	return nil
}
