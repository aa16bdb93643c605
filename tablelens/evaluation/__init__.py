"""The benchmark harness: answer question files (`batch`), score them (`report`, with the
matching rules of `scoring`) over whole suite folders (`suites`); `answerer` answers from files
ingested into one workspace. Used by `tablelens batch` and `tablelens eval`, and by `make bench`.
"""
