"""`openai_tool_tokens`: tool definitions cost what OpenAI renders, not what their JSON costs."""

from __future__ import annotations

import json

from packlab.packing.tokens import chat_tokens, count_tokens, openai_tool_tokens

WEATHER = {  # the OpenAI cookbook's example tool (How_to_count_tokens_with_tiktoken.ipynb)
    "name": "get_current_weather",
    "description": "Get the current weather in a given location",
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
        "unit": {"type": "string", "description": "The unit of temperature to return",
                 "enum": ["celsius", "fahrenheit"]}},
        "required": ["location"]},
}
MESSAGES = [
    {"role": "system",
     "content": "You are a helpful assistant that can answer to questions about the weather."},
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]


def test_the_cookbook_example_costs_what_the_api_reported():
    # The cookbook printed 105 prompt tokens from the OpenAI API for gpt-4 and gpt-3.5-turbo.
    assert chat_tokens(MESSAGES) + openai_tool_tokens([WEATHER]) == 105


def test_no_tools_cost_nothing_and_the_rendering_is_not_the_json():
    assert openai_tool_tokens([]) == 0
    assert openai_tool_tokens([WEATHER]) != count_tokens(json.dumps(WEATHER))


def test_each_enum_value_and_property_adds_its_overhead():
    bare = {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}}
    one = {**bare, "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}
    enum = {**bare, "parameters": {"type": "object", "properties": {
        "x": {"type": "string", "enum": ["a", "b"]}}}}
    one_property = 3 + 3 + count_tokens("x:string:")  # properties start, the property, its line
    assert openai_tool_tokens([one]) - openai_tool_tokens([bare]) == one_property
    assert openai_tool_tokens([enum]) - openai_tool_tokens([one]) == -3 + 2 * (3 + 1)
