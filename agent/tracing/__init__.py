"""What a turn leaves behind for an operator: OpenTelemetry spans (`telemetry`, `spans`) and
logs with secrets taken out (`log_redaction`)."""
