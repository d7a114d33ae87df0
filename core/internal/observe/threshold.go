package observe

// Threshold is the unobserved tokens past which messages are observed. It is
// messageTokens, or with a shared budget what the active observations leave
// of messageTokens + reflectTokens, never less than messageTokens: messages
// use the room the observations do not, and give it back as they grow.
func Threshold(messageTokens, reflectTokens, observationTokens int, shared bool) int {
	if !shared {
		return messageTokens
	}
	return max(messageTokens+reflectTokens-observationTokens, messageTokens)
}
