package weaviate

import (
	"strings"

	"github.com/agentmem/agentmem/core/memerr"

	"github.com/weaviate/weaviate/entities/models"
)

// Consistency levels (Config.Consistency): how many of a tenant's replicas
// must acknowledge a write or answer a read before it succeeds.
const (
	// ConsistencyOne waits for one replica: fastest, but a read may miss a
	// write that reached other replicas only, until they are repaired.
	ConsistencyOne = "ONE"
	// ConsistencyQuorum waits for a majority (2 of 3): with quorum reads
	// and writes every read sees every acknowledged write, and one node of
	// three may be down.
	ConsistencyQuorum = "QUORUM"
	// ConsistencyAll waits for every replica: a single node down fails
	// every request.
	ConsistencyAll = "ALL"
)

// checkReplication validates and normalizes the replication settings of cfg.
func (cfg *Config) checkReplication() error {
	bad := func(msg string) error {
		return &memerr.Error{Code: memerr.CodeInvalidConfig, Op: "weaviate.New", Msg: msg}
	}
	if cfg.ReplicationFactor < 0 {
		return bad("Config.ReplicationFactor must not be negative")
	}
	if cfg.ReplicationFactor == 0 {
		cfg.ReplicationFactor = 1
	}
	if cfg.AsyncReplication && cfg.ReplicationFactor < 2 {
		return bad("Config.AsyncReplication needs Config.ReplicationFactor above 1")
	}
	cfg.Consistency = strings.ToUpper(cfg.Consistency)
	switch cfg.Consistency {
	case "", ConsistencyOne, ConsistencyQuorum, ConsistencyAll:
		return nil
	}
	return bad("Config.Consistency " + cfg.Consistency + ": want ONE, QUORUM or ALL")
}

// replicationConfig is the replication of a class this store creates (nil
// without replication: the server's default of one replica).
func (s *Store) replicationConfig() *models.ReplicationConfig {
	if s.cfg.ReplicationFactor < 2 {
		return nil
	}
	// Time-based resolution: when replicas disagree after a node loss, the
	// newer of a delete and a write wins, so a repair neither brings a
	// deleted thread back nor drops a write made after a delete.
	return &models.ReplicationConfig{Factor: int64(s.cfg.ReplicationFactor), AsyncEnabled: s.cfg.AsyncReplication,
		DeletionStrategy: models.ReplicationConfigDeletionStrategyTimeBasedResolution}
}

// factorOf returns the replication factor of a class from its definition.
func factorOf(cls *models.Class) int64 {
	if cls == nil || cls.ReplicationConfig == nil || cls.ReplicationConfig.Factor < 1 {
		return 1
	}
	return cls.ReplicationConfig.Factor
}

// consistency returns the consistency level of requests on class:
// Config.Consistency, else QUORUM when the class is replicated; "" (the
// server's default) for a class of one replica without a configured level.
func (s *Store) consistency(class string) string {
	if s.cfg.Consistency != "" {
		return s.cfg.Consistency
	}
	if s.replicated(class) {
		return ConsistencyQuorum
	}
	return ""
}

// queryConsistency is the consistency level of GraphQL queries on class:
// the server knows the consistencyLevel argument only on replicated
// classes and rejects it on others.
func (s *Store) queryConsistency(class string) string {
	if !s.replicated(class) {
		return ""
	}
	return s.consistency(class)
}

// replicated reports whether class has more than one replica, as far as
// this store learned it (EnsureIndex, or the first use of the class).
func (s *Store) replicated(class string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.factors[class] > 1
}
