package telemetry

import "go.opentelemetry.io/otel/attribute"

// Attribute keys: the OpenTelemetry semantic conventions' where they exist
// (GenAI, database, error), agentmem.* for the rest.
const (
	AttrConversationID  = attribute.Key("gen_ai.conversation.id")
	AttrGenAIOperation  = attribute.Key("gen_ai.operation.name")
	AttrTopK            = attribute.Key("gen_ai.retrieval.top_k")
	AttrMemoryQueryText = attribute.Key("gen_ai.memory.query.text")
	AttrRequestModel    = attribute.Key("gen_ai.request.model")
	AttrEmbeddingCount  = attribute.Key("agentmem.embedding.inputs")
	AttrDBSystem        = attribute.Key("db.system.name")
	AttrDBOperation     = attribute.Key("db.operation.name")
	AttrDBCollection    = attribute.Key("db.collection.name")
	AttrErrorType       = attribute.Key("error.type")

	AttrResourceID       = attribute.Key("agentmem.resource.id")
	AttrBudgetTokens     = attribute.Key("agentmem.budget.tokens")
	AttrTokensLoaded     = attribute.Key("agentmem.tokens.loaded")
	AttrTokensTrimmed    = attribute.Key("agentmem.tokens.trimmed")
	AttrMessagesLoaded   = attribute.Key("agentmem.messages.loaded")
	AttrMessagesTrimmed  = attribute.Key("agentmem.messages.trimmed")
	AttrMessagesSaved    = attribute.Key("agentmem.messages.saved")
	AttrRecallHits       = attribute.Key("agentmem.recall.hits")
	AttrRecallFilter     = attribute.Key("agentmem.recall.filter")
	AttrBoundaryMoved    = attribute.Key("agentmem.boundary.moved")
	AttrObservationToken = attribute.Key("agentmem.observation.tokens")
	AttrModelRole        = attribute.Key("agentmem.model.role")
	AttrVectorRecords    = attribute.Key("agentmem.vector.records")
	AttrContent          = attribute.Key("agentmem.content")
	AttrChunksActivated  = attribute.Key("agentmem.observation.chunks")

	AttrOperation = attribute.Key("agentmem.operation")
	AttrStore     = attribute.Key("agentmem.store")
	AttrOutcome   = attribute.Key("agentmem.outcome")
)

// GenAI memory operation names (the conventions' memory proposal).
const (
	OpSearchMemory = "search_memory"
	OpUpdateMemory = "update_memory"
	OpDeleteMemory = "delete_memory"
	OpEmbeddings   = "embeddings"
	OpChat         = "chat"
)

// ThreadAttrs are the attributes of the thread and resource, those set,
// with room for extra more: one slice for all of a span's start attributes.
func ThreadAttrs(threadID, resourceID string, extra int) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 2+extra)
	if threadID != "" {
		attrs = append(attrs, AttrConversationID.String(threadID))
	}
	if resourceID != "" {
		attrs = append(attrs, AttrResourceID.String(resourceID))
	}
	return attrs
}
