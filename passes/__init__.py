"""tracejit.passes"""
