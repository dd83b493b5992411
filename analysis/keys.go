package analysis

// Object keys the decoders look at, as small numbers. Every other key is
// kOther; array elements are kElem.
const (
	kOther uint8 = iota
	kElem
	kType
	kSubtype
	kResult
	kSummary
	kSessionIdCamel // sessionId
	kSessionIDSnake // session_id
	kSessionIDUpper // sessionID (OpenCode 1.x)
	kSession
	kID
	kMetadata
	kCompletionStatus
	kFilesChanged
	kHasErrors
	kLoopNumber
	kStatus
	kExitSignal
	kTasksCompleted
	kWorkType
	kFilesModified
	kErrorCount
	kConfidence
	kPermissionDenials
	kToolName
	kToolInput
	kCommand
	kUsage
	kInputTokens
	kOutputTokens
	kCacheReadInputTokens
	kCacheCreationInputTokens
	kCachedInputTokens
	kTotalCostUSD
	kDurationMS
	kDurationAPIMS
	kNumTurns
	kIsError
	kAPIErrorStatus
	kError
	kErrors
	kMessage
	kThreadID
	kItem
	kText
	kContent
	kRole
	kParts
	kPart
	kTokens
	kInput
	kOutput
	kReasoning
	kCache
	kRead
	kWrite
	kCost
	kEvent
	kDelta
	kRateLimitInfo
	kResetsAt
	kRateLimitType
	kData
)

func keyID(k []byte) uint8 {
	switch string(k) {
	case "type":
		return kType
	case "subtype":
		return kSubtype
	case "result":
		return kResult
	case "summary":
		return kSummary
	case "sessionId":
		return kSessionIdCamel
	case "session_id":
		return kSessionIDSnake
	case "sessionID":
		return kSessionIDUpper
	case "session":
		return kSession
	case "id":
		return kID
	case "metadata":
		return kMetadata
	case "completion_status":
		return kCompletionStatus
	case "files_changed":
		return kFilesChanged
	case "has_errors":
		return kHasErrors
	case "loop_number":
		return kLoopNumber
	case "status":
		return kStatus
	case "exit_signal":
		return kExitSignal
	case "tasks_completed_this_loop":
		return kTasksCompleted
	case "work_type":
		return kWorkType
	case "files_modified":
		return kFilesModified
	case "error_count":
		return kErrorCount
	case "confidence":
		return kConfidence
	case "permission_denials":
		return kPermissionDenials
	case "tool_name":
		return kToolName
	case "tool_input":
		return kToolInput
	case "command":
		return kCommand
	case "usage":
		return kUsage
	case "input_tokens":
		return kInputTokens
	case "output_tokens":
		return kOutputTokens
	case "cache_read_input_tokens":
		return kCacheReadInputTokens
	case "cache_creation_input_tokens":
		return kCacheCreationInputTokens
	case "cached_input_tokens":
		return kCachedInputTokens
	case "total_cost_usd":
		return kTotalCostUSD
	case "duration_ms":
		return kDurationMS
	case "duration_api_ms":
		return kDurationAPIMS
	case "num_turns":
		return kNumTurns
	case "is_error":
		return kIsError
	case "api_error_status":
		return kAPIErrorStatus
	case "error":
		return kError
	case "errors":
		return kErrors
	case "message":
		return kMessage
	case "thread_id":
		return kThreadID
	case "item":
		return kItem
	case "text":
		return kText
	case "content":
		return kContent
	case "role":
		return kRole
	case "parts":
		return kParts
	case "part":
		return kPart
	case "tokens":
		return kTokens
	case "input":
		return kInput
	case "output":
		return kOutput
	case "reasoning":
		return kReasoning
	case "cache":
		return kCache
	case "read":
		return kRead
	case "write":
		return kWrite
	case "cost":
		return kCost
	case "event":
		return kEvent
	case "delta":
		return kDelta
	case "rate_limit_info":
		return kRateLimitInfo
	case "resetsAt":
		return kResetsAt
	case "rateLimitType":
		return kRateLimitType
	case "data":
		return kData
	}
	return kOther
}
