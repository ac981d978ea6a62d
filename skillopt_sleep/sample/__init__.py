"""The bundled sample project and tasks of the demo night."""
