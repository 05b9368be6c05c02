"""Converts between units of length, mass, volume, speed and temperature. Works offline."""

from agent.tools import BaseTool, ToolManifest, ToolResult

# Each unit's size in its dimension's base unit (metre, kilogram, litre, m/s).
FACTORS = {
    "length": {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048,
               "yd": 0.9144, "mi": 1609.344},
    "mass": {"mg": 1e-6, "g": 0.001, "kg": 1.0, "t": 1000.0, "oz": 0.028349523125, "lb": 0.45359237},
    "volume": {"ml": 0.001, "l": 1.0, "gal": 3.785411784, "cup": 0.2365882365},
    "speed": {"m/s": 1.0, "km/h": 1 / 3.6, "mph": 0.44704, "kn": 0.514444},
}
ALIASES = {
    "meter": "m", "meters": "m", "metre": "m", "metres": "m", "kilometer": "km", "kilometers": "km",
    "mile": "mi", "miles": "mi", "foot": "ft", "feet": "ft", "inch": "in", "inches": "in",
    "kilogram": "kg", "kilograms": "kg", "gram": "g", "grams": "g", "pound": "lb", "pounds": "lb",
    "lbs": "lb", "ounce": "oz", "ounces": "oz", "liter": "l", "litre": "l", "liters": "l",
    "gallon": "gal", "gallons": "gal", "kph": "km/h", "celsius": "c", "fahrenheit": "f", "kelvin": "k",
    "°c": "c", "°f": "f",
}
TEMPERATURES = {"c", "f", "k"}


def canonical(unit: str) -> str:
    unit = unit.strip().lower()
    return ALIASES.get(unit, unit)


def to_kelvin(value: float, unit: str) -> float:
    return {"c": value + 273.15, "f": (value - 32) * 5 / 9 + 273.15, "k": value}[unit]


def from_kelvin(value: float, unit: str) -> float:
    return {"c": value - 273.15, "f": (value - 273.15) * 9 / 5 + 32, "k": value}[unit]


class UnitConverter(BaseTool):
    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="convert_units",
            description="Convert a value between units of length, mass, volume, speed or temperature",
            parameters={
                "value": "The number to convert",
                "from_unit": "Unit of the value, e.g. km, lb, F",
                "to_unit": "Unit to convert to, e.g. mi, kg, C",
            },
            examples=["How many miles is 10 km?", "Convert 100 F to C", "5 pounds in kilograms"],
            parameter_types={"value": "float"},
        )

    def execute(self, params: dict) -> ToolResult:
        try:
            value = float(params.get("value"))
        except (TypeError, ValueError):
            return ToolResult(success=False, data="", error="value must be a number")
        source, target = canonical(str(params.get("from_unit", ""))), canonical(str(params.get("to_unit", "")))
        if source in TEMPERATURES and target in TEMPERATURES:
            result = from_kelvin(to_kelvin(value, source), target)
        else:
            dimension = next((d for d, units in FACTORS.items() if source in units and target in units), None)
            if dimension is None:
                return ToolResult(
                    success=False, data="", error=f"can't convert {params.get('from_unit')!r} to {params.get('to_unit')!r}"
                )
            result = value * FACTORS[dimension][source] / FACTORS[dimension][target]
        return ToolResult(success=True, data=f"{value:g} {source} = {result:.6g} {target}")
