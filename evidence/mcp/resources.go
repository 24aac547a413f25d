package mcp

func (s *Server) addResources() {}

func (s *Server) addPrompts() {}
