package main

import "github.com/spf13/cobra"

// TODO(owner of this file): replace this placeholder.
func (c *cli) btfCopyCmd() *cobra.Command {
	return &cobra.Command{Use: "copy", Hidden: true}
}
