package main

import "github.com/spf13/cobra"

// TODO(owner of this file): replace this placeholder.
func (c *cli) ksymCmd() *cobra.Command {
	return &cobra.Command{Use: "ksym", Hidden: true}
}
