"""The sandbox's voice double: register-call and the realtime agent socket, speech synthesis over
HTTP and its streaming socket, call records, outbound calls and SIP trunks, on the same state,
clock, scenarios and faults as the rest of the sandbox (../shared/reference/voice.md)."""
