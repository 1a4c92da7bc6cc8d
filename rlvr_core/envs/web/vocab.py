"""Word lists the page generators draw from: products, people, places, and short texts in eleven languages.

Plain data, no logic. The non-English phrases are short, everyday product and
shop sentences written for this project; each language list holds phrases of
the same meaning so a generator can show one product in several languages.
"""

from __future__ import annotations

ADJECTIVES = (
    "Compact", "Classic", "Ultra", "Smart", "Portable", "Quiet", "Rugged", "Slim", "Wireless", "Modular",
    "Premium", "Eco", "Digital", "Heavy-Duty", "Foldable", "Vintage", "Turbo", "Precision", "Solar", "Everyday",
)
NOUNS = (
    "Kettle", "Desk Lamp", "Backpack", "Headphones", "Blender", "Drill", "Monitor", "Keyboard", "Toaster",
    "Speaker", "Router", "Tent", "Camera", "Thermos", "Bicycle Light", "Air Purifier", "Coffee Grinder",
    "Water Bottle", "Office Chair", "Power Bank", "Rice Cooker", "Hair Dryer", "Smartwatch", "Projector",
)
BRANDS = (
    "Norvik", "Altura", "Brightwell", "Kestrel", "Lumio", "Oakridge", "Pinecrest", "Quantia", "Redfern",
    "Solace", "Tidewater", "Veloce", "Westmark", "Zenith Labs", "Harbor & Co", "Maplewood",
)
CATEGORIES = ("Kitchen", "Office", "Outdoor", "Audio", "Tools", "Home", "Travel", "Fitness")
COLORS = ("black", "white", "graphite", "sand", "forest green", "navy", "coral", "silver")
FIRST_NAMES = (
    "Amara", "Bruno", "Chen", "Dalia", "Emeka", "Freya", "Gustavo", "Hana", "Ilya", "Jonas", "Keiko", "Lucia",
    "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Yusuf",
)
LAST_NAMES = (
    "Okafor", "Lindqvist", "Moreau", "Tanaka", "Kowalski", "Haddad", "Fernandes", "Novak", "Rahman", "Schultz",
    "Ivanova", "Brennan", "Castillo", "Nakamura", "Osei", "Petrov",
)
CITIES = ("Lisbon", "Osaka", "Nairobi", "Toronto", "Krakow", "Valparaiso", "Tallinn", "Cebu", "Tunis", "Leeds")
STATUSES = ("Shipped", "Processing", "Delivered", "Cancelled", "Returned")
FILLER = (
    "Free returns within 30 days on most items.", "Sign up for our newsletter and get early access to sales.",
    "Our support team answers within one business day.", "Prices include VAT where applicable.",
    "Orders placed before 2 pm ship the same day.", "Gift wrapping is available at checkout.",
    "Compare up to four products side by side.", "Members earn points on every purchase.",
    "This item is part of our sustainability programme.", "See the size guide before ordering.",
    "Customers who viewed this also viewed similar items.", "Secure checkout with encrypted payment.",
    "Store pickup is available in selected cities.", "Read our reviews policy before posting.",
)
FEATURES = (
    "auto shut-off", "USB-C charging", "stainless steel body", "two-year warranty", "dishwasher-safe parts",
    "low-noise motor", "water-resistant shell", "adjustable brightness", "memory foam padding", "quick-start guide",
    "replaceable filter", "child lock", "carry case included", "energy class A", "tool-free assembly",
)
SECTION_TITLES = ("Overview", "Details", "Specifications", "Delivery", "Reviews", "Questions", "Care", "Returns")

# One meaning, many languages: a greeting banner, a product description, a delivery note, a care note.
MULTILINGUAL: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"name": ("English",), "text": (
        "Welcome to our shop", "Lightweight and easy to carry", "Delivery in two to three days",
        "Wipe clean with a damp cloth", "Limited stock available", "Made from recycled materials")},
    "de": {"name": ("Deutsch",), "text": (
        "Willkommen in unserem Laden", "Leicht und einfach zu tragen", "Lieferung in zwei bis drei Tagen",
        "Mit einem feuchten Tuch abwischen", "Nur begrenzt verfügbar", "Aus recycelten Materialien hergestellt")},
    "fr": {"name": ("Français",), "text": (
        "Bienvenue dans notre boutique", "Léger et facile à transporter", "Livraison en deux à trois jours",
        "Nettoyer avec un chiffon humide", "Stock limité disponible", "Fabriqué à partir de matériaux recyclés")},
    "es": {"name": ("Español",), "text": (
        "Bienvenido a nuestra tienda", "Ligero y fácil de llevar", "Entrega en dos o tres días",
        "Limpiar con un paño húmedo", "Existencias limitadas", "Hecho con materiales reciclados")},
    "ja": {"name": ("日本語",), "text": (
        "当店へようこそ", "軽くて持ち運びやすい", "二、三日でお届けします", "湿った布で拭いてください",
        "在庫わずか", "リサイクル素材で作られています")},
    "zh": {"name": ("中文",), "text": (
        "欢迎光临本店", "轻便易携带", "两到三天内送达", "用湿布擦拭干净", "库存有限", "由回收材料制成")},
    "ko": {"name": ("한국어",), "text": (
        "저희 매장에 오신 것을 환영합니다", "가볍고 휴대하기 쉽습니다", "2~3일 내 배송", "젖은 천으로 닦아 주세요",
        "재고 한정", "재활용 소재로 제작")},
    "ru": {"name": ("Русский",), "text": (
        "Добро пожаловать в наш магазин", "Лёгкий и удобный в переноске", "Доставка за два-три дня",
        "Протирать влажной тканью", "Количество ограничено", "Сделано из переработанных материалов")},
    "hi": {"name": ("हिन्दी",), "text": (
        "हमारी दुकान में आपका स्वागत है", "हल्का और ले जाने में आसान", "दो से तीन दिनों में डिलीवरी",
        "गीले कपड़े से साफ करें", "सीमित स्टॉक उपलब्ध", "पुनर्चक्रित सामग्री से बना")},
    "ar": {"name": ("العربية",), "text": (
        "مرحبا بكم في متجرنا", "خفيف وسهل الحمل", "التوصيل خلال يومين إلى ثلاثة أيام", "يمسح بقطعة قماش مبللة",
        "الكمية محدودة", "مصنوع من مواد معاد تدويرها")},
    "he": {"name": ("עברית",), "text": (
        "ברוכים הבאים לחנות שלנו", "קל ונוח לנשיאה", "משלוח תוך יומיים עד שלושה", "לנגב במטלית לחה",
        "מלאי מוגבל", "עשוי מחומרים ממוחזרים")},
}
RTL_LANGUAGES = ("ar", "he")
# Product names as an Arabic or Hebrew shop would print them (brand in Latin letters inside RTL text).
RTL_PRODUCTS: dict[str, tuple[str, ...]] = {
    "ar": ("غلاية كهربائية", "مصباح مكتب", "حقيبة ظهر", "سماعات لاسلكية", "خلاط", "مكبر صوت", "ساعة ذكية"),
    "he": ("קומקום חשמלי", "מנורת שולחן", "תרמיל גב", "אוזניות אלחוטיות", "בלנדר", "רמקול", "שעון חכם"),
}
RTL_LABELS: dict[str, dict[str, str]] = {
    "ar": {"price": "السعر", "name": "اسم المنتج", "stock": "متوفر", "warranty": "الضمان"},
    "he": {"price": "מחיר", "name": "שם המוצר", "stock": "במלאי", "warranty": "אחריות"},
}
# Reserved words of Python that sites use as CSS class names (`class_=` is needed in BeautifulSoup).
RESERVED_CLASSES = ("class", "for", "if", "in", "is", "return", "import", "from", "global", "with", "pass", "def")
