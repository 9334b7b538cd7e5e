"""BotChat Arena analysis: ratings from pairwise verdicts (bootstrap ELO, Bradley–Terry), win
matrices, order consistency, and the BotChat results of a run that the report and `dialbench
arena` share."""
