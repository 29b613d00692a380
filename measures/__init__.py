"""The design measures, one package each (measures/protocol.py, measures/registry.py): how a measure is played as
a sweep (cluster/ plays it), answered from the sweep's folder (queries/ reads it), shown as a page, and checked
on known answers (measures/known: the framework ``playtest validate`` runs). Its answer needs both the folder's
parts and its spec's cells and card files, so the measures sit above cluster and queries, beside the nightly
regression. The command line (cli/), the report and the service call the same functions.
"""
