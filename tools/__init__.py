"""tracejit.tools"""
