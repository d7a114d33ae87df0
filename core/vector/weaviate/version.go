package weaviate

import (
	"context"
	"errors"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate/entities/models"
)

// The index version of a resource (vector.IndexSpec.Version) is kept in its
// tenant as one marker object: id ObjectID(markerRecordID), the version in
// property indexVersion, no text and no vector, so no query returns it and no
// thread or message filter matches it. A tenant with records but no marker
// was written before versions existed: its version is "".
const markerRecordID = "\x00agentmem-index-version"

// tenantState is what a store knows of a tenant's version.
type tenantState struct {
	version string
	empty   bool // no records and no marker: the next write records the version
}

// indexVersion returns the version of the last EnsureIndex of class in
// this process; ok is false when EnsureIndex was not called for it.
func (s *Store) indexVersion(class string) (version string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	version, ok = s.versions[class]
	return version, ok
}

// tenantVersion reads (once per process) the version recorded in a tenant
// that exists.
func (s *Store) tenantVersion(ctx context.Context, class, tenant string) (tenantState, error) {
	s.mu.Lock()
	st, ok := s.tenantVersions[class+"/"+tenant]
	s.mu.Unlock()
	if ok {
		return st, nil
	}
	var objs []*models.Object
	err := retryRetiring(ctx, func() (err error) {
		objs, err = s.client.Data().ObjectsGetter().WithClassName(class).WithTenant(tenant).
			WithID(ObjectID(markerRecordID)).WithConsistencyLevel(s.consistency(class)).Do(ctx)
		return err
	})
	var ferr *fault.WeaviateClientError
	switch {
	case err == nil && len(objs) > 0:
		st.version, _ = objs[0].Properties.(map[string]any)[propIndexVersion].(string)
	case err == nil || errors.As(err, &ferr) && ferr.StatusCode == 404:
		any, err := s.client.Data().ObjectsGetter().WithClassName(class).WithTenant(tenant).WithLimit(1).Do(ctx)
		if err != nil {
			return st, err
		}
		st.empty = len(any) == 0
	default:
		return st, err
	}
	s.setTenantVersion(class, tenant, st)
	return st, nil
}

func (s *Store) setTenantVersion(class, tenant string, st tenantState) {
	s.mu.Lock()
	s.tenantVersions[class+"/"+tenant] = st
	s.mu.Unlock()
}

// checkVersion fails with memerr.ErrIndexVersionMismatch when the records of
// an existing tenant were written with another version than the index's.
// It reports whether the tenant still needs its marker. A class not ensured
// in this process has no expected version: nothing is checked or marked
// (a reader such as the agentmem CLI queries what is there).
func (s *Store) checkVersion(ctx context.Context, op, class, tenant, resource string) (needMarker bool, err error) {
	want, known := s.indexVersion(class)
	if !known {
		return false, nil
	}
	st, err := s.tenantVersion(ctx, class, tenant)
	if err != nil {
		return false, vector.Fail("weaviate."+op, "index version lookup", err)
	}
	if st.empty {
		return true, nil
	}
	if st.version != want {
		return false, vector.VersionError("weaviate."+op, "class "+class, resource, st.version, want)
	}
	return false, nil
}

// marker is the version marker object of a tenant.
func (s *Store) marker(class, tenant, resource, version string) *models.Object {
	return &models.Object{Class: class, ID: strfmt.UUID(ObjectID(markerRecordID)), Tenant: tenant, Properties: map[string]any{
		propIndexVersion: version, propResourceID: resource}}
}
