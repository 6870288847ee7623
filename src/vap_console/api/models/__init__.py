"""Wire models for every resource of the API spec (section 2), one module per resource.

``from vap_console.api.models import Rental`` (or ``models as m``) finds every one of them here;
wire.py says how a model maps to the wire form. Each resource's module is imported on first use of
one of its names (PEP 562 ``__getattr__``): a command that reads variables builds the tools module's
classes, not the agents', calls' and rentals' (each class is built at import, deferred schema or not).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vap_console.api.found_on_use import find

if TYPE_CHECKING:
    from vap_console.api.models.agents import (
        Agent,
        AgentCreate,
        AgentLimits,
        AgentSource,
        AgentTemplate,
        Language,
        TtsConfig,
        VoiceCatalog,
        VoiceDescription,
        VoiceEngine,
        WebCallSession,
    )
    from vap_console.api.models.calls import (
        TERMINAL_STATUSES,
        CallRecord,
        PlacedCall,
        SipTrunk,
        TranscriptTurn,
    )
    from vap_console.api.models.rentals import (
        AvailableNumber,
        ComplianceApplication,
        ComplianceStatus,
        DataField,
        DocumentType,
        Eligibility,
        EndUser,
        NumberType,
        ReleaseReason,
        Rental,
        RentalRequirements,
        RentalStatus,
        SearchFilters,
        StepKey,
        StepState,
        TimelineStep,
    )
    from vap_console.api.models.tools import (
        DEFAULT_TOOL_PREFIX,
        TOOL_DESCRIPTION_MAX,
        TOOL_NAME_MAX,
        TOOL_NAME_PATTERN,
        NameValue,
        Tool,
        ToolAuthInput,
        ToolAuthOutput,
        ToolConfig,
        ToolConfigInput,
        ToolCreate,
        ToolKind,
        ToolOutput,
        Variable,
    )
    from vap_console.api.models.wire import (
        ErrorBody,
        ErrorDetail,
        Page,
        _SnakeWire,
        _Wire,
    )

# Each resource module and the names it holds.
_MODULES = {
    "agents": ("Agent", "AgentCreate", "AgentLimits", "AgentSource", "AgentTemplate", "Language", "TtsConfig",
        "VoiceCatalog", "VoiceDescription", "VoiceEngine", "WebCallSession"),
    "calls": ("TERMINAL_STATUSES", "CallRecord", "PlacedCall", "SipTrunk", "TranscriptTurn"),
    "rentals": ("AvailableNumber", "ComplianceApplication", "ComplianceStatus", "DataField", "DocumentType",
        "Eligibility", "EndUser", "NumberType", "ReleaseReason", "Rental", "RentalRequirements",
        "RentalStatus", "SearchFilters", "StepKey", "StepState", "TimelineStep"),
    "tools": ("DEFAULT_TOOL_PREFIX", "TOOL_DESCRIPTION_MAX", "TOOL_NAME_MAX", "TOOL_NAME_PATTERN",
        "NameValue", "Tool", "ToolAuthInput", "ToolAuthOutput", "ToolConfig", "ToolConfigInput", "ToolCreate",
        "ToolKind", "ToolOutput", "Variable"),
    "wire": ("ErrorBody", "ErrorDetail", "Page", "_SnakeWire", "_Wire"),
}
_HOMES = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    return find(__name__, _HOMES, globals(), name)


__all__ = [
    "DEFAULT_TOOL_PREFIX",
    "TERMINAL_STATUSES",
    "TOOL_DESCRIPTION_MAX",
    "TOOL_NAME_MAX",
    "TOOL_NAME_PATTERN",
    "Agent",
    "AgentCreate",
    "AgentLimits",
    "AgentSource",
    "AgentTemplate",
    "AvailableNumber",
    "CallRecord",
    "ComplianceApplication",
    "ComplianceStatus",
    "DataField",
    "DocumentType",
    "Eligibility",
    "EndUser",
    "ErrorBody",
    "ErrorDetail",
    "Language",
    "NameValue",
    "NumberType",
    "Page",
    "PlacedCall",
    "ReleaseReason",
    "Rental",
    "RentalRequirements",
    "RentalStatus",
    "SearchFilters",
    "SipTrunk",
    "StepKey",
    "StepState",
    "TimelineStep",
    "Tool",
    "ToolAuthInput",
    "ToolAuthOutput",
    "ToolConfig",
    "ToolConfigInput",
    "ToolCreate",
    "ToolKind",
    "ToolOutput",
    "TranscriptTurn",
    "TtsConfig",
    "Variable",
    "VoiceCatalog",
    "VoiceDescription",
    "VoiceEngine",
    "WebCallSession",
    "_SnakeWire",
    "_Wire",
]
