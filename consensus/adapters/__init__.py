"""The outside world behind the ports: litellm (llm), PyGithub (github), git, the SQLite
journal, a local Ollama. Only app/ imports these.
"""
