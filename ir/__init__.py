"""tracejit.ir"""
