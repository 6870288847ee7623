"""What every account sees the same: agent templates and the voice catalogue (spec 2.6, 2.7)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from vap_console.sandbox.clock import iso
from vap_console.sandbox.state import stable_id

# ttsConfig defaults of the real service's public docs.
TTS_DEFAULTS: dict[str, Any] = {
    "f0_up_key": 0,
    "temperature": 0.6,
    "top_p": 0.95,
    "top_k": 50,
    "repetition_penalty": 1.2,
    "max_new_tokens": 2048,
}
F0_RANGE = (-12, 12)

LANGUAGES = [
    {"id": "english", "label": "English", "disabled": False},
    {"id": "hinglish", "label": "Hinglish", "disabled": False},
    {"id": "hindi", "label": "Hindi", "disabled": False},
]

MUGA_DESCRIPTIONS = [
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
    "defaultModel": "mulberry",
    "models": [
        {
            "id": "mulberry",
            "label": "Mulberry",
            "disabled": False,
            "badge": "New",
            "voices": ["ira", "aisha", "siya", "zoya"],
            "languages": LANGUAGES,
            "defaultLanguage": "hinglish",
            "descriptions": [],
            "phoneCalls": True,
        },
        {
            "id": "muga",
            "label": "Muga",
            "disabled": False,
            "badge": None,
            "voices": [],
            "languages": LANGUAGES,
            "defaultLanguage": "english",
            "descriptions": MUGA_DESCRIPTIONS,
            "phoneCalls": True,
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
        _tts("mulberry", "ira"),
    ),
    (
        "lead-qualifier",
        "Real-estate lead qualifier",
        "Calls back enquiries from property portals and qualifies budget, location and timeline.",
        "You are {agent_name} from {business_name}. The caller enquired about a property. Find out "
        "their budget, preferred locality and when they plan to buy. Be brief and polite.",
        "Hello {customer_name}, this is {agent_name} from {business_name}. You enquired about a flat "
        "with us. Is this a good time to talk?",
        _tts("mulberry", "aisha"),
    ),
    (
        "order-status",
        "Order status helpdesk",
        "Tells D2C shoppers where their order is and raises return requests.",
        "You are {agent_name}, support agent for {business_name}. Look up the caller's order with "
        "{{order_status}} and explain its status simply. Offer a return if the order is delivered.",
        "Hi, thanks for calling {business_name} support. Could you tell me your order number?",
        _tts("muga", "", MUGA_DESCRIPTIONS[0]["description"]),
    ),
    (
        "emi-reminder",
        "EMI payment reminder",
        "Reminds borrowers of an upcoming EMI and shares payment options.",
        "You are {agent_name} calling from {business_name}. Remind {customer_name} that the EMI of "
        "{emi_amount} is due on {due_date}. Share the payment options. Be respectful; never threaten.",
        "Namaste {customer_name}, this is {agent_name} from {business_name} with a quick reminder.",
        _tts("mulberry", "siya"),
    ),
    (
        "restaurant-reservations",
        "Restaurant reservations",
        "Takes table bookings and answers menu questions for a restaurant.",
        "You are {agent_name} at {business_name}. Take table reservations: date, time, party size and "
        "a contact number. Mention today's specials when asked.",
        "Good evening, {business_name}! Would you like to reserve a table?",
        _tts("mulberry", "zoya"),
    ),
    (
        "feedback-survey",
        "Post-visit feedback survey",
        "Asks customers three short questions after a visit and records a 1–5 rating.",
        "You are {agent_name} from {business_name}. Ask {customer_name} how their visit went, what "
        "could be better, and for a rating from 1 to 5. Keep it under two minutes.",
        "Hi {customer_name}, this is {agent_name} from {business_name}. Do you have a minute for feedback?",
        _tts("muga", "", MUGA_DESCRIPTIONS[2]["description"]),
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
