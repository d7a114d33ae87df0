package observe

import "fmt"

// Defaults of buffering, as in Mastra once buffering is on.
const (
	DefaultBufferActivation           = 0.8
	DefaultBlockAfter                 = 1.2
	DefaultReflectionBufferActivation = 0.5
)

// BufferSettings is resolved buffering: token counts are absolute.
type BufferSettings struct {
	MessageTokens int // observation threshold
	// BufferTokens: a buffer job starts every BufferTokens of unobserved,
	// unbuffered tokens; 0 when observation does not buffer.
	BufferTokens int
	// Activation is bufferActivation: a ratio in (0, 1] of MessageTokens to
	// activate, or (>= 1000) the tokens to keep unobserved.
	Activation float64
	// BlockAfter: past it a cycle waits and observes synchronously.
	BlockAfter    int
	ReflectTokens int // reflection threshold
	// ReflectActivation: a buffered reflection starts at this ratio of
	// ReflectTokens; 0 when reflection does not buffer.
	ReflectActivation float64
	// ReflectBlockAfter: past it a cycle reflects synchronously.
	ReflectBlockAfter int
}

// BufferInput is the buffering part of the configuration, as set.
type BufferInput struct {
	MessageTokens, ReflectTokens         int
	BufferTokens, Activation, BlockAfter float64
	ReflectActivation, ReflectBlockAfter float64
	ResourceScope                        bool
}

// ResolveBuffer validates and resolves buffering with Mastra's rules:
// bufferTokens in (0, 1) is a fraction of messageTokens, else tokens, and
// must stay under messageTokens; bufferActivation is a ratio in (0, 1] or
// (>= 1000) tokens to keep, under messageTokens; blockAfter in [1, 100) is a
// multiplier of the threshold, else tokens, at least the threshold, and only
// with buffering; reflection.bufferActivation is a ratio in (0, 1]. Nil
// settings mean nothing buffers. The error text names the field.
func ResolveBuffer(in BufferInput) (*BufferSettings, error) {
	bad := fmt.Errorf
	obsOn, refOn := in.BufferTokens != 0, in.ReflectActivation != 0
	switch {
	case in.BufferTokens < 0:
		return nil, bad("observation.bufferTokens must be positive (a fraction of messageTokens below 1, or tokens)")
	case in.Activation < 0 || in.Activation > 1 && in.Activation < 1000:
		return nil, bad("observation.bufferActivation must be a ratio in (0, 1] or at least 1000 tokens to keep, got %g", in.Activation)
	case in.BlockAfter < 0:
		return nil, bad("observation.blockAfter must be positive, got %g", in.BlockAfter)
	case in.ReflectActivation < 0 || in.ReflectActivation > 1:
		return nil, bad("reflection.bufferActivation must be in (0, 1], got %g", in.ReflectActivation)
	case in.ReflectBlockAfter < 0:
		return nil, bad("reflection.blockAfter must be positive, got %g", in.ReflectBlockAfter)
	case !obsOn && (in.Activation != 0 || in.BlockAfter != 0):
		return nil, bad("observation.bufferActivation and observation.blockAfter need observation.bufferTokens (they apply to buffering)")
	case !refOn && in.ReflectBlockAfter != 0 && !obsOn:
		return nil, bad("reflection.blockAfter needs reflection.bufferActivation (it applies to buffering)")
	case (obsOn || refOn) && in.ResourceScope:
		return nil, bad("buffering is not supported with scope resource; use scope thread or leave observation.bufferTokens and reflection.bufferActivation unset")
	}
	if !obsOn && !refOn {
		return nil, nil
	}
	s := &BufferSettings{MessageTokens: in.MessageTokens, ReflectTokens: in.ReflectTokens, Activation: in.Activation,
		ReflectActivation: in.ReflectActivation}
	if obsOn {
		s.BufferTokens = int(in.BufferTokens)
		if in.BufferTokens < 1 {
			s.BufferTokens = int(float64(in.MessageTokens)*in.BufferTokens + 0.5)
		}
		if s.BufferTokens < 1 || s.BufferTokens >= in.MessageTokens {
			return nil, bad("observation.bufferTokens (%d tokens) must be at least 1 and less than messageTokens (%d)", s.BufferTokens, in.MessageTokens)
		}
		if s.Activation == 0 {
			s.Activation = DefaultBufferActivation
		}
		if s.Activation >= 1000 && int(s.Activation) >= in.MessageTokens {
			return nil, bad("observation.bufferActivation as tokens to keep (%g) must be less than messageTokens (%d)", s.Activation, in.MessageTokens)
		}
		if s.BlockAfter = multiple(in.BlockAfter, DefaultBlockAfter, in.MessageTokens); s.BlockAfter < in.MessageTokens {
			return nil, bad("observation.blockAfter (%d tokens) must be at least messageTokens (%d)", s.BlockAfter, in.MessageTokens)
		}
		if s.ReflectActivation == 0 {
			s.ReflectActivation = DefaultReflectionBufferActivation
		}
	}
	if s.ReflectBlockAfter = multiple(in.ReflectBlockAfter, DefaultBlockAfter, in.ReflectTokens); s.ReflectBlockAfter < in.ReflectTokens {
		return nil, bad("reflection.blockAfter (%d tokens) must be at least reflection.observationTokens (%d)", s.ReflectBlockAfter, in.ReflectTokens)
	}
	return s, nil
}

// multiple resolves a blockAfter: [1, 100) multiplies threshold, larger
// values are tokens, 0 takes def (a multiplier).
func multiple(v, def float64, threshold int) int {
	if v == 0 {
		v = def
	}
	if v >= 1 && v < 100 {
		return int(float64(threshold)*v + 0.5)
	}
	return int(v)
}
