"""What every account sees the same: agent templates and the voice catalogue (spec 2.6, 2.7)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from vap_console.sandbox.clock import iso
from vap_console.sandbox.records import stable_id

# ttsConfig defaults of the real service's public docs.
TTS_DEFAULTS: dict[str, Any] = {
    "f0_up_key": 0,
    "temperature": 0.6,
    "top_p": 0.95,
    "top_k": 50,
    "repetition_penalty": 1.2,
    "max_new_tokens": 2048,
}
F0_RANGE = (-12, 12)  # semitones; decimals accepted (the vendor's own plugin sends 2.0)

def _languages(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"id": i, "label": label, "disabled": False} for i, label in pairs]


# The public docs' steering of each engine (reference/real-service.md): muga by one leading tone
# tag and inline events, mulberry by a description or a preset speaker, mulberry-1.6 by a preset.
MUGA_TONES = ["neutral", "happy", "sad", "excited", "angry", "whisper"]
MUGA_EVENTS = ["<laugh>", "<chuckle>", "<sigh>"]
MULBERRY_PRESETS = ["speaker_1", "speaker_2", "speaker_3", "speaker_4"]
MULBERRY_16_PRESETS = ["ira", "aisha", "siya", "zoya"]

MULBERRY_DESCRIPTIONS = [
    {"id": "warm_female", "label": "Warm", "subtitle": "Female, late 20s",
     "description": "A warm, friendly young woman speaking at a relaxed pace with a light Indian accent."},
    {"id": "crisp_male", "label": "Crisp", "subtitle": "Male, 30s",
     "description": "A clear, confident man with a neutral Indian accent, brisk and businesslike."},
    {"id": "calm_female", "label": "Calm", "subtitle": "Female, 40s",
     "description": "A calm, reassuring woman who speaks slowly and clearly, suited to healthcare."},
    {"id": "energetic_male", "label": "Energetic", "subtitle": "Male, 20s",
     "description": "An upbeat young man with lively intonation, suited to sales and promotions."},
]

VOICES: dict[str, Any] = {
    # The TTS default model of the public docs.
    "defaultModel": "muga",
    "models": [
        {
            "id": "muga",
            "label": "Silk Muga 1",
            "disabled": False,
            "badge": None,
            "voices": [],
            # Romanised (Latin-script) Hinglish only.
            "languages": _languages(("hinglish", "Hinglish (romanised)")),
            "defaultLanguage": "hinglish",
            "descriptions": [],
            "phoneCalls": True,
            # Not in the spec's entry: the steering the public docs give, kept as extra fields.
            "tones": MUGA_TONES,
            "events": MUGA_EVENTS,
        },
        {
            "id": "mulberry",
            "label": "Silk Mulberry 1.5",
            "disabled": False,
            "badge": None,
            "voices": MULBERRY_PRESETS,
            # Devanagari Hindi and Latin English, code-mixed.
            "languages": _languages(("hinglish", "Hinglish"), ("hindi", "Hindi"), ("english", "English")),
            "defaultLanguage": "hinglish",
            "descriptions": MULBERRY_DESCRIPTIONS,
            "phoneCalls": True,
        },
        {
            "id": "mulberry-1.6",
            "label": "Silk Mulberry 1.6",
            "disabled": False,
            "badge": "New",
            "voices": MULBERRY_16_PRESETS,
            # Each language in its own script, no code-mixing (a sample of the 22).
            "languages": _languages(
                ("english", "English"), ("hindi", "Hindi"), ("bengali", "Bengali"), ("marathi", "Marathi"),
                ("tamil", "Tamil"), ("telugu", "Telugu"), ("kannada", "Kannada"), ("malayalam", "Malayalam"),
                ("gujarati", "Gujarati"), ("punjabi", "Punjabi"), ("odia", "Odia"),
            ),
            "defaultLanguage": "english",
            "descriptions": [],
            # Phone calls to 1.6 agents were refused in a public benchmark.
            "phoneCalls": False,
        },
    ],
}
ENGINES = {m["id"]: m for m in VOICES["models"]}


def _tts(model: str, voice: str, description: str = "") -> dict[str, Any]:
    return {"model": model, "voice": voice, "description": description, **TTS_DEFAULTS}


_TEMPLATES = [
    (
        "clinic-receptionist",
        "Clinic receptionist",
        "Answers calls for a clinic: timings, doctors, booking and rescheduling appointments.",
        "You are {agent_name}, the receptionist of {business_name} in {city}. Help callers book, "
        "move or cancel appointments and answer questions about timings ({support_hours}). "
        "Speak {language_preference}. Use {{book_appointment}} to book a slot. Never give medical advice.",
        "Namaste! You've reached {business_name}. This is {agent_name}, how may I help you today?",
        _tts("mulberry", "", MULBERRY_DESCRIPTIONS[2]["description"]),
    ),
    (
        "lead-qualifier",
        "Real-estate lead qualifier",
        "Calls back enquiries from property portals and qualifies budget, location and timeline.",
        "You are {agent_name} from {business_name}. The caller enquired about a property. Find out "
        "their budget, preferred locality and when they plan to buy. Be brief and polite.",
        "Hello {customer_name}, this is {agent_name} from {business_name}. You enquired about a flat "
        "with us. Is this a good time to talk?",
        {**_tts("mulberry", "speaker_3"), "f0_up_key": 1.5},
    ),
    (
        "order-status",
        "Order status helpdesk",
        "Tells D2C shoppers where their order is and raises return requests.",
        "You are {agent_name}, support agent for {business_name}. Look up the caller's order with "
        "{{order_status}} and explain its status simply. Offer a return if the order is delivered.",
        "Hi, thanks for calling {business_name} support. Could you tell me your order number?",
        _tts("muga", ""),
    ),
    (
        "emi-reminder",
        "EMI payment reminder",
        "Reminds borrowers of an upcoming EMI and shares payment options.",
        "You are {agent_name} calling from {business_name}. Remind {customer_name} that the EMI of "
        "{emi_amount} is due on {due_date}. Share the payment options. Be respectful; never threaten.",
        "Namaste {customer_name}, this is {agent_name} from {business_name} with a quick reminder.",
        _tts("muga", ""),
    ),
    (
        "restaurant-reservations",
        "Restaurant reservations",
        "Takes table bookings and answers menu questions for a restaurant.",
        "You are {agent_name} at {business_name}. Take table reservations: date, time, party size and "
        "a contact number. Mention today's specials when asked.",
        "Good evening, {business_name}! Would you like to reserve a table?",
        _tts("mulberry", "speaker_1"),
    ),
    (
        "feedback-survey",
        "Post-visit feedback survey",
        "Asks customers three short questions after a visit and records a 1–5 rating.",
        "You are {agent_name} from {business_name}. Ask {customer_name} how their visit went, what "
        "could be better, and for a rating from 1 to 5. Keep it under two minutes.",
        "Hi {customer_name}, this is {agent_name} from {business_name}. Do you have a minute for feedback?",
        _tts("mulberry-1.6", "siya"),
    ),
]


def templates(origin: datetime) -> list[dict[str, Any]]:
    made = origin - timedelta(days=120)
    return [
        {
            "id": stable_id("template", slug),
            "slug": slug,
            "name": name,
            "description": description,
            "systemInstruction": system,
            "greeting": greeting,
            "ttsConfig": dict(tts),
            "sortOrder": (i + 1) * 10,
            "createdAt": iso(made),
            "updatedAt": iso(made + timedelta(days=i)),
        }
        for i, (slug, name, description, system, greeting, tts) in enumerate(_TEMPLATES)
    ]


def template_by_slug(slug: str) -> tuple[str, str, str, str, str, dict[str, Any]] | None:
    return next((t for t in _TEMPLATES if t[0] == slug), None)
