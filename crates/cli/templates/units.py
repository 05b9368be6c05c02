"""Converts between units of length, mass, volume, speed and temperature, named
in English, Japanese or Chinese (km, キロ, 公里). Works offline. Its errors are
in the settings' `language` (en, ja or zh)."""

from agent.tools import BaseTool, ToolManifest, ToolResult

# Each unit's size in its dimension's base unit (metre, kilogram, litre, m/s).
# Volumes are US customary (a cup is 236.6 ml).
FACTORS = {
    "length": {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048,
               "yd": 0.9144, "mi": 1609.344, "nmi": 1852.0},
    "mass": {"mg": 1e-6, "g": 0.001, "kg": 1.0, "t": 1000.0, "oz": 0.028349523125, "lb": 0.45359237,
             "st": 6.35029318},
    "volume": {"ml": 0.001, "cl": 0.01, "dl": 0.1, "l": 1.0, "tsp": 0.00492892159375,
               "tbsp": 0.01478676478125, "fl oz": 0.0295735295625, "cup": 0.2365882365,
               "pt": 0.473176473, "qt": 0.946352946, "gal": 3.785411784},
    "speed": {"m/s": 1.0, "km/h": 1 / 3.6, "mph": 0.44704, "kn": 0.514444},
}
TEMPERATURES = {"°C", "°F", "K"}

# Names people write for each unit, in English, Japanese and Chinese
# (compared lowercased, without spaces). A name that means units of several
# dimensions (キロ is km or kg) is settled by the other unit of the call.
NAMES = {
    "mm": "millimeter millimeters millimetre millimetres ミリ ミリメートル 毫米",
    "cm": "centimeter centimeters centimetre centimetres センチ センチメートル 厘米 公分",
    "m": "meter meters metre metres メートル 米 公尺",
    "km": "kilometer kilometers kilometre kilometres kms キロ キロメートル 公里 千米",
    "in": "inch inches \" インチ 英寸",
    "ft": "foot feet ' フィート 英尺",
    "yd": "yard yards ヤード 码",
    "mi": "mile miles マイル 英里",
    "nmi": "nauticalmile nauticalmiles 海里",
    "mg": "milligram milligrams ミリグラム 毫克",
    "g": "gram grams gr グラム 克",
    "kg": "kilogram kilograms kilo kilos kgs キロ キログラム 公斤 千克",
    "t": "ton tons tonne tonnes トン 吨",
    "oz": "ounce ounces オンス 盎司",
    "lb": "pound pounds lbs ポンド 磅",
    "st": "stone stones ストーン 英石",
    "ml": "milliliter milliliters millilitre millilitres cc ミリリットル ミリ 毫升",
    "cl": "centiliter centiliters centilitre centilitres センチリットル 厘升",
    "dl": "deciliter deciliters decilitre decilitres デシリットル 分升",
    "l": "liter liters litre litres リットル 升 公升",
    "tsp": "teaspoon teaspoons tsps 小さじ ティースプーン 茶匙 小勺",
    "tbsp": "tablespoon tablespoons tbsps 大さじ テーブルスプーン 汤匙 大勺",
    "fl oz": "floz fluidounce fluidounces 液量オンス 液盎司",
    "cup": "cups c カップ 杯 量杯",
    "pt": "pint pints パイント 品脱",
    "qt": "quart quarts クォート 夸脱",
    "gal": "gallon gallons ガロン 加仑",
    "m/s": "mps meterpersecond meterspersecond 秒速メートル 米每秒",
    "km/h": "kph kmh kmph kilometerperhour kilometersperhour 時速キロ キロ毎時 公里每小时 公里/小时",
    "mph": "mileperhour milesperhour 時速マイル 英里每小时",
    "kn": "knot knots kt ノット 节",
    "°C": "c celsius centigrade ℃ 摂氏 摂氏度 セ氏 摄氏 摄氏度",
    "°F": "f fahrenheit ℉ 華氏 華氏度 カ氏 华氏 华氏度",
    "K": "k kelvin kelvins ケルビン 开尔文 开",
}
ALIASES: dict[str, list[str]] = {}
for unit, names in NAMES.items():
    for name in [unit, *names.split()]:
        ALIASES.setdefault(name.lower().replace(" ", ""), []).append(unit)

MESSAGES = {
    "en": {
        "value": "the value must be a number",
        "unknown": "unknown unit {unit!r}",
        "mismatch": "can't convert {source!r} to {target!r}",
    },
    "ja": {
        "value": "値は数値で指定してください",
        "unknown": "不明な単位です: {unit!r}",
        "mismatch": "{source!r} を {target!r} に換算できません",
    },
    "zh": {
        "value": "数值必须是数字",
        "unknown": "未知的单位：{unit!r}",
        "mismatch": "无法把 {source!r} 换算成 {target!r}",
    },
}


def units_named(name: str) -> list[str]:
    """The units `name` may mean, most likely first; empty when none."""
    key = name.strip().lower().replace(" ", "")
    if key in ALIASES:
        return ALIASES[key]
    # "30度" and "30 degrees celsius": the degree word adds nothing.
    for degree in ("°", "度", "degrees", "degree"):
        key = key.replace(degree, "")
    return ALIASES.get(key, [])


def dimension_of(unit: str) -> str:
    if unit in TEMPERATURES:
        return "temperature"
    return next(dimension for dimension, units in FACTORS.items() if unit in units)


def resolve(sources: list[str], targets: list[str]) -> tuple[str, str] | None:
    """The first pair of units, one from each list, of one dimension."""
    for source in sources:
        for target in targets:
            if dimension_of(source) == dimension_of(target):
                return source, target
    return None


def to_kelvin(value: float, unit: str) -> float:
    return {"°C": value + 273.15, "°F": (value - 32) * 5 / 9 + 273.15, "K": value}[unit]


def from_kelvin(value: float, unit: str) -> float:
    return {"°C": value - 273.15, "°F": (value - 273.15) * 9 / 5 + 32, "K": value}[unit]


class UnitConverter(BaseTool):
    def __init__(self, config: dict):
        self.messages = MESSAGES.get(config.get("language"), MESSAGES["en"])

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="convert_units",
            description="Convert a value between units of length, mass, volume, speed or temperature",
            parameters={
                "value": "The number to convert",
                "from_unit": "Unit of the value, e.g. km, lb, F",
                "to_unit": "Unit to convert to, e.g. mi, kg, C",
            },
            examples=[
                "How many miles is 10 km?",
                "Convert 100 F to C",
                "5 pounds in kilograms",
                "3 cups in milliliters",
                "5キロは何マイル？",
                "3カップは何ミリリットル？",
                "10公里是多少英里？",
                "100华氏度是多少摄氏度？",
            ],
            parameter_types={"value": "float"},
        )

    def fail(self, message: str, **values) -> ToolResult:
        return ToolResult(success=False, data="", error=self.messages[message].format(**values))

    def execute(self, params: dict) -> ToolResult:
        try:
            value = float(params.get("value"))
        except (TypeError, ValueError):
            return self.fail("value")
        named = str(params.get("from_unit", "")).strip(), str(params.get("to_unit", "")).strip()
        sources, targets = units_named(named[0]), units_named(named[1])
        for name, units in zip(named, (sources, targets)):
            if not units:
                return self.fail("unknown", unit=name)
        pair = resolve(sources, targets)
        if pair is None:
            return self.fail("mismatch", source=named[0], target=named[1])
        source, target = pair
        if source in TEMPERATURES:
            result = from_kelvin(to_kelvin(value, source), target)
        else:
            factors = FACTORS[dimension_of(source)]
            result = value * factors[source] / factors[target]
        return ToolResult(success=True, data=f"{value:g} {source} = {result:.6g} {target}")
