package main

import "github.com/spf13/cobra"

// TODO(owner of this file): replace this placeholder.
func (c *cli) btfModulesCmd() *cobra.Command {
	return &cobra.Command{Use: "modules", Hidden: true}
}
