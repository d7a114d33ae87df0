package weaviate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"net/http"
	"strings"

	"github.com/agentmem/agentmem/core/vector"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate/entities/models"
)

// Property names of the stored objects.
const (
	propText         = "text"
	propKeywords     = "keywords"
	propIndexVersion = "indexVersion"
	propRecordID     = "recordId"
	propMessageID    = "messageId"
	propThreadID     = "threadId"
	propResourceID   = "resourceId"
	propRole         = "role"
	propCreatedAt    = "createdAt"
)

// TenantName returns the tenant of a resource id: "r" and 32 hex digits of
// its SHA-256 (tenant names must match [A-Za-z0-9_-]{1,64}).
func TenantName(resourceID string) string {
	sum := sha256.Sum256([]byte(resourceID))
	return "r" + hex.EncodeToString(sum[:16])
}

// EnsureIndex creates the class of spec.Name if it does not exist. An
// existing class with another vectorizer is an error.
func (s *Store) EnsureIndex(ctx context.Context, spec vector.IndexSpec) error {
	const op = "EnsureIndex"
	class := s.ClassName(spec.Name)
	s.mu.Lock()
	s.versions[class] = spec.Version
	s.mu.Unlock()
	cls, err := s.client.Schema().ClassGetter().WithClassName(class).Do(ctx)
	if err == nil && cls != nil {
		if cls.Vectorizer != s.cfg.Vectorizer {
			return vector.Fail("weaviate."+op, "class "+class+" exists with vectorizer "+cls.Vectorizer+", not "+s.cfg.Vectorizer, nil)
		}
		if err := s.addMissingProperties(ctx, cls); err != nil {
			return vector.Fail("weaviate."+op, "add properties to class "+class, err)
		}
		if err := s.ensureLifecycle(ctx, cls); err != nil {
			return vector.Fail("weaviate."+op, "tenant settings of class "+class, err)
		}
		s.markClass(class, factorOf(cls))
		return nil
	}
	def := s.classDef(class, spec)
	if err := s.client.Schema().ClassCreator().WithClass(def).Do(ctx); err != nil {
		// Another process may have created it meanwhile.
		if ok, cerr := s.classExists(ctx, class); cerr != nil || !ok {
			return vector.Fail("weaviate."+op, "create class "+class, err)
		}
		return nil
	}
	s.markClass(class, factorOf(def))
	return nil
}

// classDescription, followed by the index name, describes a class; it is
// how IndexNames learns the index of a class.
const classDescription = "agentmem message vectors of index "

// IndexNames implements vector.IndexLister: the indexes of this store's
// classes (class prefix), read from their descriptions.
func (s *Store) IndexNames(ctx context.Context) ([]string, error) {
	sch, err := s.client.Schema().Getter().Do(ctx)
	if err != nil {
		return nil, vector.Fail("weaviate.IndexNames", "read schema", err)
	}
	var out []string
	for _, c := range sch.Classes {
		name, ok := strings.CutPrefix(c.Description, classDescription)
		if ok && s.ClassName(name) == c.Class {
			out = append(out, name)
		}
	}
	return out, nil
}

// markClass records that class exists with a replication factor.
func (s *Store) markClass(class string, factor int64) {
	s.mu.Lock()
	s.classes[class] = true
	s.factors[class] = factor
	s.mu.Unlock()
}

func (s *Store) classDef(class string, spec vector.IndexSpec) *models.Class {
	f, t := false, true
	idProp := func(name string) *models.Property {
		return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: "field",
			IndexSearchable: &f, IndexFilterable: &t, ModuleConfig: s.skipVectorization()}
	}
	c := &models.Class{
		Class:       class,
		Description: classDescription + spec.Name,
		Vectorizer:  s.cfg.Vectorizer,
		MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: true, AutoTenantCreation: true,
			AutoTenantActivation: true},
		ReplicationConfig: s.replicationConfig(),
		VectorIndexType:   "hnsw",
		VectorIndexConfig: map[string]any{"distance": distance(spec.Config.Metric)},
		InvertedIndexConfig: &models.InvertedIndexConfig{Stopwords: &models.StopwordConfig{Preset: "none"},
			Bm25: &models.BM25Config{K1: 1.2, B: 0.75}},
		Properties: append([]*models.Property{
			{Name: propText, DataType: []string{"text"}, Tokenization: "word", IndexSearchable: &f, IndexFilterable: &f},
			idProp(propRecordID), idProp(propMessageID), idProp(propThreadID), idProp(propResourceID), idProp(propRole),
			{Name: propCreatedAt, DataType: []string{"date"}, IndexFilterable: &t, ModuleConfig: s.skipVectorization()},
		}, s.addedProperties()...),
	}
	if strings.EqualFold(spec.Config.Type, "flat") {
		c.VectorIndexType = "flat"
	} else if h := spec.Config.HNSW; h.M > 0 || h.EfConstruction > 0 {
		if h.M > 0 {
			c.VectorIndexConfig.(map[string]any)["maxConnections"] = h.M
		}
		if h.EfConstruction > 0 {
			c.VectorIndexConfig.(map[string]any)["efConstruction"] = h.EfConstruction
		}
	}
	if s.SelfEmbedding() {
		mc := map[string]any{"vectorizeClassName": false, "properties": []string{propText}}
		maps.Copy(mc, s.cfg.ModuleConfig)
		c.ModuleConfig = map[string]any{s.cfg.Vectorizer: mc}
	}
	return c
}

// addedProperties are the properties added after the first release: a class
// created before them gets them from EnsureIndex.
func (s *Store) addedProperties() []*models.Property {
	f, t := false, true
	return append([]*models.Property{
		{Name: propKeywords, DataType: []string{"text"}, Tokenization: "whitespace", IndexSearchable: &t,
			IndexFilterable: &f, ModuleConfig: s.skipVectorization()},
		{Name: propIndexVersion, DataType: []string{"text"}, Tokenization: "field", IndexSearchable: &f,
			IndexFilterable: &f, ModuleConfig: s.skipVectorization()},
	}, s.metaProperties()...)
}

// addMissingProperties adds the addedProperties that cls lacks.
func (s *Store) addMissingProperties(ctx context.Context, cls *models.Class) error {
	have := map[string]bool{}
	for _, p := range cls.Properties {
		have[p.Name] = true
	}
	for _, p := range s.addedProperties() {
		if have[p.Name] {
			continue
		}
		if err := s.client.Schema().PropertyCreator().WithClassName(cls.Class).WithProperty(p).Do(ctx); err != nil {
			return err
		}
	}
	return nil
}

// skipVectorization is the property moduleConfig that keeps a property out
// of the embedded text.
func (s *Store) skipVectorization() any {
	if !s.SelfEmbedding() {
		return nil
	}
	return map[string]any{s.cfg.Vectorizer: map[string]any{"skip": true, "vectorizePropertyName": false}}
}

// distance maps vector.IndexConfig.Metric to Weaviate's distance names.
func distance(metric string) string {
	switch strings.ToLower(metric) {
	case "euclidean", "l2", "l2-squared":
		return "l2-squared"
	case "dotproduct", "dot":
		return "dot"
	default:
		return "cosine"
	}
}

// classExists reports whether class exists, asking the server once (and
// learning its replication factor).
func (s *Store) classExists(ctx context.Context, class string) (bool, error) {
	s.mu.Lock()
	known := s.classes[class]
	s.mu.Unlock()
	if known {
		return true, nil
	}
	cls, err := s.getClass(ctx, class)
	if err != nil || cls == nil {
		return false, err
	}
	s.markClass(class, factorOf(cls))
	return true, nil
}

// getClass returns the definition of class, nil when the server says it
// does not exist. Any other failure (a cluster without a Raft leader
// answers 500) is an error, not an absent class.
func (s *Store) getClass(ctx context.Context, class string) (*models.Class, error) {
	cls, err := s.client.Schema().ClassGetter().WithClassName(class).Do(ctx)
	var ferr *fault.WeaviateClientError
	if errors.As(err, &ferr) && ferr.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	return cls, err
}

// tenantExists reports whether the tenant exists; positive answers are cached.
func (s *Store) tenantExists(ctx context.Context, class, tenant string) (bool, error) {
	s.touch(class, tenant) // every read and delete looks the tenant up first
	s.mu.Lock()
	known := s.tenants[class][tenant]
	s.mu.Unlock()
	if known {
		return true, nil
	}
	if ok, err := s.classExists(ctx, class); err != nil || !ok {
		return false, err
	}
	ok, err := s.client.Schema().TenantsExists().WithClassName(class).WithTenant(tenant).Do(ctx)
	if err != nil {
		return false, err
	}
	if ok {
		s.markTenants(class, tenant)
	}
	return ok, nil
}

// ensureTenants creates the tenants not known to exist.
func (s *Store) ensureTenants(ctx context.Context, class string, tenants []string) error {
	s.touch(class, tenants...) // every write ensures its tenants first
	s.mu.Lock()
	var missing []models.Tenant
	for _, t := range tenants {
		if !s.tenants[class][t] {
			missing = append(missing, models.Tenant{Name: t})
		}
	}
	s.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	if err := s.client.Schema().TenantsCreator().WithClassName(class).WithTenants(missing...).Do(ctx); err != nil {
		// Existing tenants are fine; anything else fails the write.
		for _, t := range missing {
			if ok, _ := s.client.Schema().TenantsExists().WithClassName(class).WithTenant(t.Name).Do(ctx); !ok {
				return err
			}
		}
	}
	names := make([]string, len(missing))
	for i, t := range missing {
		names[i] = t.Name
	}
	s.markTenants(class, names...)
	return nil
}

func (s *Store) markTenants(class string, tenants ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tenants[class] == nil {
		s.tenants[class] = map[string]bool{}
	}
	for _, t := range tenants {
		s.tenants[class][t] = true
	}
}

func (s *Store) forgetTenant(class, tenant string) {
	s.mu.Lock()
	delete(s.lastUse, class+"/"+tenant)
	delete(s.tenants[class], tenant)
	delete(s.tenantVersions, class+"/"+tenant)
	s.mu.Unlock()
	s.forgetSample(class, tenant)
}
