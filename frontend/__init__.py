"""tracejit.frontend"""
