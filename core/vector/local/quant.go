package local

import "math"

// Vectors are kept as int8 codes of the unit vector with one float32 scale
// each (symmetric scalar quantization): a 384-dimension vector takes 388
// bytes instead of 1,536 as float32, which is what keeps a 100k-message
// resource within a small process (BENCHMARKS.md). Cosine
// similarity against a unit float32 query is scale·Σ q_i·code_i; the
// rounding error per component is at most scale/2 (≤ 0.4% of the largest
// component), measured as recall against exact float32 search in
// approx_test.go.

// quantize returns the int8 codes of v/|v| (the largest component ±127)
// and the scale that makes the decoded vector a unit vector, so that a
// decoded vector quantizes to the same codes again (persistence) and a
// vector's similarity to itself is 1; a zero vector returns scale 0 (it
// matches nothing, its cosine being undefined).
func quantize(v []float32, codes []int8) float32 {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	if sq == 0 {
		clear(codes)
		return 0
	}
	inv := 1 / math.Sqrt(sq)
	var hi float64
	for _, x := range v {
		if a := math.Abs(float64(x) * inv); a > hi {
			hi = a
		}
	}
	step := hi / 127
	var cc float64
	for i, x := range v {
		codes[i] = int8(math.Round(float64(x) * inv / step))
		cc += float64(codes[i]) * float64(codes[i])
	}
	return float32(1 / math.Sqrt(cc)) // the decoded vector has unit length
}

// unit returns v/|v| as float32, or nil for a zero vector.
func unit(v []float32) []float32 {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	if sq == 0 {
		return nil
	}
	inv := 1 / math.Sqrt(sq)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// decode writes the (unit-length, up to rounding) vector of codes into out.
func decode(codes []int8, scale float32, out []float32) {
	for i, c := range codes {
		out[i] = float32(c) * scale
	}
}

// dot is Σ q_i·c_i, unrolled by four (the hot loop of every search).
func dot(q []float32, c []int8) float32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * float32(c[i])
		s1 += q[i+1] * float32(c[i+1])
		s2 += q[i+2] * float32(c[i+2])
		s3 += q[i+3] * float32(c[i+3])
	}
	for ; i < len(q); i++ {
		s0 += q[i] * float32(c[i])
	}
	return s0 + s1 + s2 + s3
}
