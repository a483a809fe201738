from django.contrib import admin

from notifications.models import EmailSetting, Notification


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["user", "kind", "text", "created_at", "read_at", "emailed_at"]
    list_filter = ["kind"]
    search_fields = ["user__username", "text", "key"]
    raw_id_fields = ["user"]


@admin.register(EmailSetting)
class EmailSettingAdmin(admin.ModelAdmin):
    list_display = ["user", "kind", "email"]
    raw_id_fields = ["user"]
